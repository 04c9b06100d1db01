/*
 * redact_rate.c - how fast pm_redact runs over log text (MB/s), to size the epilog deadline.
 *
 * usage: redact_rate [MB] [FILE...]
 * Without files it times three generated texts of MB megabytes (default 64): an ordinary
 * training log (NCCL, loss lines, tracebacks, Xids, GPU UUIDs, URLs, "token"/"key" words),
 * the same with one secret every 50 lines, and a keyword-dense worst case.  With files it
 * times each file.  Best of five runs, in CPU time (steadier than wall time on a shared
 * host); never a test assertion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "redact.h"

/* Line I of text KIND (0 ordinary, 1 one secret per 50 lines, 2 keyword-dense) into P. */
static int line(char *p, int kind, unsigned i)
{
	unsigned r = i % 64;

	if (kind == 2)
		return i % 2 ? snprintf(p, 512,
					"password token secret key auth pass pwd Bearer Basic sk- eyJ :// %u %u\n",
					r, i) :
			       snprintf(p, 512,
					"api_key=abc%u secret_key: x%u token=\"abc\" --password p -----BEGIN X-----\n",
					r, i);
	if (kind == 1 && i % 50 == 49) {
		switch (i % 3) {
		case 0:
			return snprintf(
				p, 512,
				"export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh%u%u\n", r,
				i);
		case 1:
			return snprintf(
				p, 512,
				"curl -H 'Authorization: Bearer abcdef0123456789abcdef%u' https://x/%u\n",
				r, i);
		default:
			return snprintf(p, 512, "postgres://app:S3cret%u@db:5432/runs?x=%u\n", r,
					i);
		}
	}
	switch (i % 7) {
	case 0:
		return snprintf(
			p, 512,
			"[2024-05-01 10:07:41,128] [rank%u]: step %u | loss 2.%05u | lr 3.000e-04 | grad_norm 0.873 | tokens/s: 41187 | max_tokens=512 | num_tokens: 2048\n",
			r, i, i % 100000);
	case 1:
		return snprintf(
			p, 512,
			"node%03u:182734:182901 [%u] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/0/GDRDMA comm 0x55d0c3a8e2d0 commId 0x9e2b1c4d5f6a7b8c\n",
			r, i % 8);
	case 2:
		return snprintf(
			p, 512,
			"  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line %u, in _call_impl (frame %u)\n",
			i % 2000, r);
	case 3:
		return snprintf(
			p, 512,
			"wandb: View run at https://wandb.ai/acme-ml/llama-sft/runs/3k2j1h4g (GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b, step %u/%u)\n",
			i, i + r);
	case 4:
		return snprintf(
			p, 512,
			"[Wed May  1 10:06:01 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=%u, name=python, GPU has fallen off the bus. %u\n",
			i, r);
	case 5:
		return snprintf(
			p, 512,
			"[rank%u]: loading tokenizer from /data/tokenizer/vocab.json (tokenizer.json not found), key=value pairs %u\n",
			r, i);
	default:
		return snprintf(
			p, 512,
			"%u: store at tcp://10.1.0.14:29500 sha256:9f2b6c0d1e3a5b7c9d1f3e5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c %u\n",
			r, i);
	}
}

static char *gen(size_t mb, int kind, size_t *len)
{
	size_t cap = mb << 20, n = 0;
	char *p = malloc(cap + 512);

	if (!p)
		exit(1);
	for (unsigned i = 0; n < cap; i++)
		n += (size_t)line(p + n, kind, i);
	*len = n;
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steadier on a shared host */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void time_it(const char *what, const char *buf, size_t len)
{
	double best = 1e9;
	struct pm_redact_stats st = {0};

	for (int r = 0; r < 5; r++) {
		char *out;
		size_t outlen;
		double t0 = now();

		if (pm_redact(buf, len, &out, &outlen, r ? NULL : &st)) {
			perror("pm_redact");
			exit(1);
		}
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
		free(out);
	}
	printf("%-28s %8.1f MB %9.1f MB/s %8lu redactions\n", what, len / 1048576.0,
	       len / 1048576.0 / best, st.total);
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, len;
	char *b;

	if (argc > 2) {
		for (int i = 2; i < argc; i++) {
			FILE *f = fopen(argv[i], "rb");
			size_t cap = 1 << 20, k;

			len = 0;
			b = malloc(cap);
			if (!f || !b)
				return 1;
			while ((k = fread(b + len, 1, cap - len, f)) > 0)
				if ((len += k) == cap && !(b = realloc(b, cap *= 2)))
					return 1;
			fclose(f);
			time_it(argv[i], b, len);
			free(b);
		}
		return 0;
	}
	b = gen(mb, 0, &len);
	time_it("ordinary log", b, len);
	free(b);
	b = gen(mb, 1, &len);
	time_it("1 secret per 50 lines", b, len);
	free(b);
	b = gen(mb, 2, &len);
	time_it("keyword-dense worst case", b, len);
	free(b);
	return 0;
}
