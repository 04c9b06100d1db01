/*
 * redact.h - the secret redactor: text in, the same text with its secrets replaced out.
 *
 * Everything the epilog collector archives (job output, the user's named logs, kernel and
 * daemon logs) passes through pm_redact before compression, so that tokens, keys, passwords
 * and private key blocks never reach the evidence store, while identifiers that are not
 * secrets (GPU and MIG UUIDs, PCI ids, job ids, hashes, addresses) come out untouched.
 * Public, beside postmortem.h: the collector redacts what it archives, and the engine redacts
 * again every line a verdict shows (pm_redact_text), so both parts must redact alike and
 * the redactor lives with the engine that both use.  The kind names below are part of the
 * output contract.
 */
#ifndef PM_REDACT_H
#define PM_REDACT_H

#include <stddef.h>

/*
 * Kinds of secret.  A redacted secret reads "[REDACTED:<name>]" in the archive, <name> being
 * pm_redact_kind_name(kind): names are stable (add new kinds, never rename one); the numbers
 * are not part of any file format.
 */
enum pm_redact_kind {
	PM_REDACT_AWS_ACCESS_KEY_ID,	 /* AKIA/ASIA/ABIA/ACCA + 16 */
	PM_REDACT_AWS_SECRET_ACCESS_KEY, /* aws_secret_access_key=, "SecretAccessKey": */
	PM_REDACT_AWS_SESSION_TOKEN,	 /* aws_session_token=, X-Amz-Security-Token= */
	PM_REDACT_URL_SIGNATURE,	 /* X-Amz-Signature=, X-Goog-Signature= */
	PM_REDACT_GCP_API_KEY,		 /* AIza... */
	PM_REDACT_GCP_OAUTH_TOKEN,	 /* ya29.... */
	PM_REDACT_GCP_PRIVATE_KEY_ID,	 /* "private_key_id": of a service-account key */
	PM_REDACT_AZURE_STORAGE_KEY,	 /* AccountKey=, SharedAccessKey= */
	PM_REDACT_AZURE_SAS_TOKEN,	 /* ?...&sig= */
	PM_REDACT_CLIENT_SECRET,	 /* AZURE_CLIENT_SECRET=, xxx8Q~..., GOCSPX-... */
	PM_REDACT_HUGGINGFACE_TOKEN,	 /* hf_..., HF_TOKEN= */
	PM_REDACT_WANDB_API_KEY,	 /* WANDB_API_KEY=, wandb login KEY */
	PM_REDACT_MLFLOW_CREDENTIAL,	 /* MLFLOW_TRACKING_PASSWORD=, MLFLOW_TRACKING_TOKEN= */
	PM_REDACT_COMET_API_KEY,	 /* COMET_API_KEY= */
	PM_REDACT_NEPTUNE_API_TOKEN,	 /* NEPTUNE_API_TOKEN=, eyJhcGlfYWRkcmVzcyI6... */
	PM_REDACT_KAGGLE_KEY,		 /* KAGGLE_KEY=, kaggle.json "key" */
	PM_REDACT_DATABRICKS_TOKEN,	 /* dapi + 32 hex */
	PM_REDACT_OPENAI_API_KEY,	 /* sk-..., sk-proj-... */
	PM_REDACT_ANTHROPIC_API_KEY,	 /* sk-ant-... */
	PM_REDACT_GITHUB_TOKEN,		 /* ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ */
	PM_REDACT_GITLAB_TOKEN,		 /* glpat- gldt- glrt- glptt- */
	PM_REDACT_SLACK_TOKEN,		 /* xoxb- xoxp- xoxa- xoxe- xapp- ... */
	PM_REDACT_WEBHOOK_URL,		 /* hooks.slack.com/services/..., /api/webhooks/... */
	PM_REDACT_STRIPE_KEY,		 /* sk_live_ rk_live_ sk_test_ whsec_ */
	PM_REDACT_TWILIO_CREDENTIAL,	 /* SK + 32 hex, TWILIO_AUTH_TOKEN= */
	PM_REDACT_SENDGRID_API_KEY,	 /* SG.x.y */
	PM_REDACT_NPM_TOKEN,		 /* npm_... */
	PM_REDACT_PYPI_TOKEN,		 /* pypi-AgEIcHlwaS5vcmc... */
	PM_REDACT_DOCKER_AUTH,		 /* "auth": "<base64>" of ~/.docker/config.json */
	PM_REDACT_KUBERNETES_TOKEN,	 /* a JWT issued by kubernetes (service-account token) */
	PM_REDACT_JWT,			 /* eyJ....eyJ....sig */
	PM_REDACT_BEARER_TOKEN,		 /* Authorization: Bearer X, Bearer X */
	PM_REDACT_BASIC_AUTH,		 /* Authorization: Basic X, Basic <base64 of user:pass> */
	PM_REDACT_URL_PASSWORD,		 /* scheme://user:PASSWORD@host */
	PM_REDACT_DB_PASSWORD,		 /* postgres:// mysql:// mongodb+srv:// ..., PGPASSWORD= */
	PM_REDACT_NETRC_PASSWORD,	 /* machine H login U password P */
	PM_REDACT_S3_SECRET_KEY,	 /* MINIO_SECRET_KEY=, secret_key =, mc alias set */
	PM_REDACT_PRIVATE_KEY,		 /* -----BEGIN [RSA |EC |ENCRYPTED ]PRIVATE KEY----- */
	PM_REDACT_SSH_PRIVATE_KEY,	 /* -----BEGIN OPENSSH PRIVATE KEY----- */
	PM_REDACT_PGP_PRIVATE_KEY,	 /* -----BEGIN PGP PRIVATE KEY BLOCK----- */
	PM_REDACT_PASSWORD,		 /* password/passwd/passphrase assignments */
	PM_REDACT_SECRET,		 /* ...secret assignments, SECRET_KEY_BASE= */
	PM_REDACT_TOKEN,		 /* ...token assignments, other schemes, ://TOKEN@ */
	PM_REDACT_API_KEY,		 /* api_key/apikey/access_key/... assignments */
	PM_REDACT_COOKIE,		 /* Cookie: / Set-Cookie: values, curl --cookie */
	PM_REDACT__COUNT
};

/* What one or more calls replaced: the number of replacements, in all and by kind. */
struct pm_redact_stats {
	unsigned long total;
	unsigned long by_kind[PM_REDACT__COUNT];
};

/*
 * Redact BUF (LEN bytes of text in an ASCII-compatible encoding, not NUL-terminated,
 * possibly binary or without a final newline) into a new buffer *OUT of *OUTLEN bytes.
 * UTF-16 and UTF-32 text pass unread (NULs between each two characters hide every secret):
 * a caller must not archive them (the collector refuses them, epilog/scrub.c).  Each secret found is
 * replaced by "[REDACTED:<kind>]"; every other byte is copied unchanged (CR, NUL, invalid
 * UTF-8 included), so text without secrets comes out byte-identical.
 *
 * Lines (up to and including '\n') are redacted one at a time; lines longer than 1 MiB are
 * cut into pieces of at most 1 MiB (at a blank where one is near), each scanned with up to
 * 4 KiB of its line on either side, so that a name cut from its value or a secret cut in two
 * is still found (each piece's part of it replaced).  Private key blocks span lines: from a "-----BEGIN ... PRIVATE
 * KEY-----" line to the next "-----END" marker everything becomes one "[REDACTED:<kind>]"
 * (the lines in between included), as long as each line can be the key's body: base64, and
 * before it PEM headers and a blank line, after what precedes the BEGIN marker on its line
 * or text alike but for its digits (srun --label's "3: ", a logger's time stamp); for a key
 * printed as a list of strings, one quoted base64 string a line.  The first line that
 * cannot (another rank's line, the job going on) ends the block and is copied out on a
 * line of its own, so that a BEGIN line without its END never swallows what follows; when
 * that is another rank's line (its prefix alike, not the same), the key's own base64 lines
 * after it are still redacted, each on its own, up to a line of its prefix that is not
 * body or an END marker.  A block still open at the end of BUF is redacted to the end of
 * BUF.  A block whose start is
 * missing (BUF is the tail of a capped file, or other ranks' lines ended it) is caught at
 * its END line, which takes back the body lines (base64, each with the prefix the END line
 * has or one alike) copied out before it, keeping other ranks' lines between them.
 * Nothing is carried between calls: a caller that splits a file must split it at line
 * ends.
 *
 * The work is linear in LEN (one literal prefilter pass, then bounded checks at each hit)
 * and memory is bounded by *OUTLEN plus a small constant per hit on one line.  The result is
 * a function of BUF alone, and redacting a redacted text changes nothing.
 *
 * On success returns 0, *OUT (malloc'd, owned by the caller; one NUL byte follows its
 * *OUTLEN bytes) and, when ST is not NULL, adds the replacements made to *ST (zero it
 * first).  On failure returns -1 with errno set and touches neither *OUT, *OUTLEN nor *ST:
 * ENOMEM out of memory; ENOTSUP the literal prefilter (Vectorscan) cannot run on this CPU;
 * EINVAL a NULL OUT or OUTLEN, or a NULL BUF with LEN > 0.  A caller that gets -1 must not
 * archive the text unredacted.
 *
 * Thread-safe.  The one piece of process-wide state is the prefilter database: immutable,
 * compiled on the first call (pthread_once) and never freed.
 */
int pm_redact(const char *buf, size_t len, char **out, size_t *outlen, struct pm_redact_stats *st);

/*
 * A redacted copy of the NUL-terminated string S: a second line of defence for text that is
 * shown rather than archived (a verdict's evidence lines and summaries, whatever file they
 * came from, redacted once already or not).  The same rules as pm_redact, applied to S
 * alone; redacting a redacted text changes nothing.  Returns a malloc'd string (owned by the
 * caller), adding the replacements to *ST when ST is not NULL, or NULL with errno (EINVAL: S
 * is NULL; ENOMEM, ENOTSUP as pm_redact): a caller that gets NULL must not show S.
 */
char *pm_redact_text(const char *s, struct pm_redact_stats *st);

/* The name of KIND ("aws_access_key_id", ...), static; NULL when KIND is out of range. */
const char *pm_redact_kind_name(int kind);

#endif /* PM_REDACT_H */
