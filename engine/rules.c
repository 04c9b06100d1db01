/*
 * rules.c - load a rule set directory: YAML files in name order, validated, every pattern
 * compiled twice: all together into one Vectorscan database (prefilter mode, for the single
 * pass over the text) and each alone with PCRE2 (to confirm a line and take its captures).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* valgrind's client request, a few instructions that say whether the program runs under it */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND false
#endif

#include "internal.h"
#include "taxonomy.h"
#include "ruleset.h"

static const char *const role_names[PM_ROLE__COUNT] = {
	"origin", "cascade", "teardown", "confirmation", "progress", "context",
};

static const char *const cap_names[PM_CAP__COUNT] = {
	"rank", "node", "gpu",	  "pci", "xid",	 "peer",   "seq", "seqdone",
	"pid",	"code", "signal", "exc", "addr", "nranks", "pg",  "absent",
};

static const char *const outcomes[] = {
	"TIMEOUT",  "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
	"REQUEUED", "COMPLETED", "PENDING",   "FAILED",	       NULL,
};

const char *pm_role_name(enum pm_role r)
{
	return (unsigned)r < PM_ROLE__COUNT ? role_names[r] : "?";
}

const char *pm_cap_name(enum pm_cap c)
{
	return (unsigned)c < PM_CAP__COUNT ? cap_names[c] : "?";
}

/* ---- errors ---- */

struct loader {
	struct pm_ruleset *rs;
	const char *file; /* current file name, relative to the set */
	char *err;
	size_t errlen;
	size_t arules;
	size_t adec;
};

static int fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (ld->err && ld->errlen) {
		off = snprintf(ld->err, ld->errlen, "%s:%lu: ", ld->file ? ld->file : "?",
			       n ? (unsigned long)n->start_mark.line + 1 : 0UL);
		if (off < 0 || (size_t)off >= ld->errlen)
			off = 0;
		va_start(ap, fmt);
		vsnprintf(ld->err + off, ld->errlen - off, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

/* ---- YAML helpers ---- */

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* Every key of MAP must be one of ALLOWED (NULL-terminated). */
static int check_keys(struct loader *ld, yaml_document_t *doc, yaml_node_t *map,
		      const char *const *allowed, const char *what)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(doc, p->key);
		const char *k = scalar(kn);
		size_t i;

		if (!k)
			return fail(ld, kn, "%s: keys must be plain words", what);
		for (i = 0; allowed[i] && strcmp(allowed[i], k); i++)
			;
		if (!allowed[i])
			return fail(ld, kn, "%s: unknown key '%s'", what, k);
	}
	return 0;
}

static int get_str(struct loader *ld, yaml_document_t *doc, yaml_node_t *map, const char *key,
		   bool required, char **out)
{
	yaml_node_t *n = map_get(doc, map, key);
	const char *s;

	if (!n) {
		if (required)
			return fail(ld, map, "missing '%s'", key);
		return 0;
	}
	s = scalar(n);
	if (!s)
		return fail(ld, n, "'%s' must be a string", key);
	free(*out);
	*out = strdup(s);
	if (!*out)
		return -1;
	return 0;
}

static int get_bool(struct loader *ld, yaml_document_t *doc, yaml_node_t *map, const char *key,
		    bool *out)
{
	yaml_node_t *n = map_get(doc, map, key);
	const char *s;

	if (!n)
		return 0;
	s = scalar(n);
	if (s && !strcmp(s, "true"))
		*out = true;
	else if (s && !strcmp(s, "false"))
		*out = false;
	else
		return fail(ld, n, "'%s' must be true or false", key);
	return 0;
}

static int get_num(struct loader *ld, yaml_document_t *doc, yaml_node_t *map, const char *key,
		   double lo, double hi, double *out)
{
	yaml_node_t *n = map_get(doc, map, key);
	const char *s;
	char *end;
	double v;

	if (!n)
		return 0;
	s = scalar(n);
	if (!s)
		return fail(ld, n, "'%s' must be a number", key);
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi)
		return fail(ld, n, "'%s' must be a number from %g to %g", key, lo, hi);
	*out = v;
	return 0;
}

/* ---- one rule ---- */

static bool valid_id(const char *s)
{
	if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static int parse_cond(struct loader *ld, yaml_node_t *n, const char *text, struct pm_cond *c)
{
	static const struct {
		const char *s;
		enum pm_op op;
	} ops[] = {
		{">=", PM_OP_GE}, {"<=", PM_OP_LE}, {"==", PM_OP_EQ},
		{"!=", PM_OP_NE}, {">", PM_OP_GT},  {"<", PM_OP_LT},
	};
	char lhs[128], op[4], rhs[128], extra[2];
	char *end;
	size_t i;

	if (sscanf(text, " %127[a-z_.] %3[<>=!] %127s %1s", lhs, op, rhs, extra) != 3)
		return fail(ld, n, "condition must be 'FACT OP NUMBER' or 'FACT OP FACT'");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[i].s, op); i++)
		;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return fail(ld, n, "condition: unknown operator '%s'", op);
	if (strncmp(lhs, "gpu.", 4) && strncmp(lhs, "node.", 5) && strncmp(lhs, "job.", 4))
		return fail(ld, n, "condition: fact '%s' must start with gpu., node. or job.", lhs);
	c->op = ops[i].op;
	c->fact = strdup(lhs);
	c->rhs = strtod(rhs, &end);
	if (end == rhs || *end) {
		if (strncmp(rhs, "node.", 5) && strncmp(rhs, "job.", 4))
			return fail(ld, n,
				    "condition: '%s' is neither a number nor a node./job. fact",
				    rhs);
		c->rhs_fact = strdup(rhs);
		if (!c->rhs_fact)
			return -1;
	}
	return c->fact ? 0 : -1;
}

/*
 * A rule's patterns are compiled to machine code at load (PCRE2's JIT): matching is most of a
 * scan's time (the Vectorscan prefilter only picks the lines a rule may match), and the
 * interpreter took about twice as long over the fixtures as the code does.  The compile costs
 * some 20 ms a rule set.  Where the library has no JIT, or the system refuses executable
 * memory, pcre2_jit_compile fails and pcre2_match interprets: the same answers.  The JIT
 * honours the match limit (counted its own way; only a line that exhausts a pattern's budget
 * could read otherwise) and has its own stack instead of the depth limit: a match that runs out
 * of it is asked of the interpreter again (pm_re_match), under the depth limit as before.
 *
 * Under valgrind the interpreter runs: valgrind cannot follow code made at run time, and the
 * machine code's aligned loads past a subject's end read as uses of uninitialised memory in
 * every buffer the scan matches in.  The interpreter is what valgrind then checks our code
 * with, as it did before the JIT.
 */
bool pm_re_jit(void)
{
	uint32_t have = 0;

	if (pcre2_config(PCRE2_CONFIG_JIT, &have) < 0 || !have)
		return false;
	return !UNDER_VALGRIND;
}

static void jit(pcre2_code *re)
{
	if (pm_re_jit())
		(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
}

int pm_re_match(const struct pm_ruleset *rs, const pcre2_code *re, const char *s, size_t n,
		pcre2_match_data *md)
{
	pcre2_match_context *mc = rs ? rs->mctx : NULL;
	int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, mc);

	if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
		rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, PCRE2_NO_JIT, md, mc);
	return rc;
}

static int compile_pcre(struct loader *ld, yaml_node_t *n, struct pm_rule *r)
{
	int ec, i;
	PCRE2_SIZE eo;
	uint32_t count, size;
	PCRE2_SPTR table;

	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	if (!r->re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		return fail(ld, n, "rule %s: pattern: %s at offset %zu", r->id, (char *)msg,
			    (size_t)eo);
	}
	jit(r->re);
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMETABLE, &table);
	for (uint32_t k = 0; k < count; k++) {
		const unsigned char *e = table + k * size;
		int num = e[0] << 8 | e[1];
		const char *name = (const char *)e + 2;

		for (i = 0; i < PM_CAP__COUNT && strcmp(name, cap_names[i]); i++)
			;
		if (i == PM_CAP__COUNT)
			return fail(ld, n, "rule %s: unknown capture name '%s'", r->id, name);
		r->cap[i] = num;
	}
	return 0;
}

/* Rule R's key KEY (node N) holds the pattern S: compiled into *RE, or -1 with the
 * compiler's message. */
static int key_pattern_opt(struct loader *ld, yaml_node_t *n, const struct pm_rule *r,
			   const char *key, const char *s, uint32_t opt, pcre2_code **re)
{
	int ec;
	PCRE2_SIZE eo;

	if ((*re = pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, opt, &ec, &eo, NULL))) {
		jit(*re);
		return 0;
	}
	PCRE2_UCHAR msg[160];
	pcre2_get_error_message(ec, msg, sizeof(msg));
	return fail(ld, n, "rule %s: %s: %s at offset %zu", r->id, key, (char *)msg, (size_t)eo);
}

static int key_pattern(struct loader *ld, yaml_node_t *n, const struct pm_rule *r, const char *key,
		       const char *s, pcre2_code **re)
{
	return key_pattern_opt(ld, n, r, key, s, 0, re);
}

/* 'last': true, or a pattern that reads the lines of the same report which may follow the
 * rule's line (Perl's "BEGIN failed--compilation aborted" under its "Can't locate"). */
static int get_last(struct loader *ld, yaml_document_t *doc, yaml_node_t *map, struct pm_rule *r)
{
	yaml_node_t *n = map_get(doc, map, "last");
	const char *s;

	if (!n)
		return 0;
	if (!(s = scalar(n)) || !*s)
		return fail(ld, n, "rule %s: 'last' must be true, false or a pattern", r->id);
	if (!strcmp(s, "false"))
		return 0;
	r->last = true;
	if (!strcmp(s, "true"))
		return 0;
	return key_pattern(ld, n, r, "last", s, &r->last_re);
}

/* 'not_after': a pattern for the lines (of the same writer, at most PM_NOT_AFTER_LINES
 * before it) after which the rule's line is the tail of another report, not read. */
static int get_not_after(struct loader *ld, yaml_document_t *doc, yaml_node_t *map,
			 struct pm_rule *r)
{
	yaml_node_t *n = map_get(doc, map, "not_after");
	const char *s;

	if (!n)
		return 0;
	if (!(s = scalar(n)) || !*s)
		return fail(ld, n, "rule %s: 'not_after' must be a pattern", r->id);
	return key_pattern(ld, n, r, "not_after", s, &r->not_after_re);
}

/* 'after': a pattern for the lines (of the same writer, at most PM_NOT_AFTER_LINES before
 * it) of which one must be read by it: the rule's line is read only as the tail of that
 * report. */
static int get_after(struct loader *ld, yaml_document_t *doc, yaml_node_t *map, struct pm_rule *r)
{
	yaml_node_t *n = map_get(doc, map, "after");
	const char *s;

	if (!n)
		return 0;
	if (!(s = scalar(n)) || !*s)
		return fail(ld, n, "rule %s: 'after' must be a pattern", r->id);
	return key_pattern(ld, n, r, "after", s, &r->after_re);
}

/* 'not_beside': a pattern for text of the same listing (the chunk) that makes the rule's line
 * no fault; multi-line, read over the chunk's text (scan.c, beside). */
static int get_not_beside(struct loader *ld, yaml_document_t *doc, yaml_node_t *map,
			  struct pm_rule *r)
{
	yaml_node_t *n = map_get(doc, map, "not_beside");
	const char *s;

	if (!n)
		return 0;
	if (!(s = scalar(n)) || !*s)
		return fail(ld, n, "rule %s: 'not_beside' must be a pattern", r->id);
	return key_pattern_opt(ld, n, r, "not_beside", s, PCRE2_MULTILINE, &r->not_beside_re);
}

static int parse_sources(struct loader *ld, yaml_document_t *doc, yaml_node_t *n, struct pm_rule *r)
{
	yaml_node_item_t *it;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return fail(ld, n, "rule %s: 'sources' must be a list of source kinds", r->id);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(doc, *it);
		enum pm_source src;

		if (!scalar(s) || pm_source_parse(scalar(s), &src) < 0)
			return fail(ld, s, "rule %s: unknown source kind '%s'", r->id,
				    scalar(s) ? scalar(s) : "?");
		r->sources |= 1u << src;
	}
	if (!r->sources)
		return fail(ld, n, "rule %s: 'sources' is empty", r->id);
	return 0;
}

/* 'formats' (optional, after 'sources'): formats of the rule's own sources. A source with a
 * format listed is read only in those formats (slurmctld's "update_node:" lines, which
 * slurmd never writes: a slurmd log that holds one had it planted through a path). */
_Static_assert(PM_FMT__COUNT <= 64, "a rule's formats are bits of an unsigned long long");

static int parse_formats(struct loader *ld, yaml_document_t *doc, yaml_node_t *n, struct pm_rule *r)
{
	yaml_node_item_t *it;

	if (!n)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return fail(ld, n, "rule %s: 'formats' must be a non-empty list of formats", r->id);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(doc, *it);
		enum pm_format f;
		enum pm_source src;

		if (!scalar(s) || pm_format_parse(scalar(s), &f) < 0 || f == PM_FMT_BINARY ||
		    f == PM_FMT_EMPTY)
			return fail(ld, s, "rule %s: unknown format '%s'", r->id,
				    scalar(s) ? scalar(s) : "?");
		src = pm_format_source(f);
		if (!(r->sources & (1u << src)))
			return fail(ld, s,
				    "rule %s: format '%s' is of source '%s', not in its sources",
				    r->id, scalar(s), pm_source_name(src));
		r->fmt_sources |= 1u << src;
		r->formats |= 1ull << f;
	}
	return 0;
}

/* 'refines': a list of CLASS/SUBCLASS kinds a trusted confirmation reads anew (att_cands.c,
 * refine). */
static int parse_refines(struct loader *ld, yaml_document_t *doc, yaml_node_t *n, struct pm_rule *r,
			 unsigned trusted)
{
	yaml_node_item_t *it;

	if (!n)
		return 0;
	if (r->role != PM_ROLE_CONFIRMATION || (r->sources & ~trusted))
		return fail(ld, n,
			    "rule %s: 'refines' is for confirmation rules on sources the job's "
			    "user cannot write",
			    r->id);
	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top ||
	    n->data.sequence.items.top - n->data.sequence.items.start > PM_REFINES_MAX)
		return fail(ld, n, "rule %s: 'refines' must be a list of 1 to %d class/subclass",
			    r->id, PM_REFINES_MAX);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(doc, *it);
		const char *v = scalar(s), *slash = v ? strchr(v, '/') : NULL;
		char *cls;

		if (!slash)
			return fail(ld, s, "rule %s: refines '%s' is not a class/subclass", r->id,
				    v ? v : "?");
		if (!(cls = strndup(v, (size_t)(slash - v))))
			return -1;
		if (pm_taxonomy_check(cls, slash + 1) < 0) {
			free(cls);
			return fail(ld, s, "rule %s: refines '%s' is not in the taxonomy", r->id,
				    v);
		}
		r->refines_cls[r->nrefines] = cls;
		if (!(r->refines_sub[r->nrefines++] = strdup(slash + 1)))
			return -1;
	}
	return 0;
}

static int enum_lookup(const char *s, const char *const *names, int count)
{
	for (int i = 0; s && i < count; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_rule(struct loader *ld, yaml_document_t *doc, yaml_node_t *m, struct pm_rule *r)
{
	static const char *const keys[] = {"id",	  "class",	 "subclass",   "role",
					   "strength",	  "sources",	 "pattern",    "condition",
					   "summary",	  "outcome",	 "launch",     "deprecated",
					   "formats",	  "generic",	 "chain",      "nonfatal",
					   "reasonless",  "attached",	 "counter",    "last",
					   "refines",	  "heeds_level", "not_after",  "not_beside",
					   "comm_crash",  "handler",	 "link_state", "own_port",
					   "step_wait",	  "fs_stall",	 "after",      "boot",
					   "end_summary", "formed",	 NULL};
	static const char *const strengths[] = {"weak", "medium", "strong"};
	char *role = NULL, *strength = NULL, *cond = NULL;
	const unsigned trusted = (1u << PM_SRC_KERNEL_LOG) | (1u << PM_SRC_GPU_STATE) |
				 (1u << PM_SRC_NODE_METRICS) | (1u << PM_SRC_SCHEDULER);
	int rc = -1, k;

	r->file = strdup(ld->file);
	r->line = (int)m->start_mark.line + 1;
	if (!r->file || m->type != YAML_MAPPING_NODE) {
		fail(ld, m, "a rule must be a mapping");
		goto out;
	}
	if (check_keys(ld, doc, m, keys, "rule") < 0 || get_str(ld, doc, m, "id", true, &r->id) < 0)
		goto out;
	if (!valid_id(r->id)) {
		fail(ld, m, "rule id '%s' must match [a-z0-9][a-z0-9-]*", r->id);
		goto out;
	}
	if (get_str(ld, doc, m, "class", true, &r->cls) < 0 ||
	    get_str(ld, doc, m, "subclass", false, &r->subcls) < 0 ||
	    get_str(ld, doc, m, "role", true, &role) < 0 ||
	    get_str(ld, doc, m, "strength", true, &strength) < 0 ||
	    get_str(ld, doc, m, "summary", true, &r->summary) < 0 ||
	    get_str(ld, doc, m, "pattern", false, &r->pattern) < 0 ||
	    get_str(ld, doc, m, "condition", false, &cond) < 0 ||
	    get_str(ld, doc, m, "outcome", false, &r->outcome) < 0 ||
	    get_bool(ld, doc, m, "launch", &r->launch) < 0 ||
	    get_bool(ld, doc, m, "deprecated", &r->deprecated) < 0 ||
	    get_bool(ld, doc, m, "generic", &r->generic) < 0 ||
	    get_bool(ld, doc, m, "chain", &r->chain) < 0 ||
	    get_bool(ld, doc, m, "nonfatal", &r->nonfatal) < 0 ||
	    get_bool(ld, doc, m, "reasonless", &r->reasonless) < 0 ||
	    get_bool(ld, doc, m, "formed", &r->formed) < 0 ||
	    get_bool(ld, doc, m, "handler", &r->handler) < 0 ||
	    get_bool(ld, doc, m, "comm_crash", &r->comm_crash) < 0 ||
	    get_bool(ld, doc, m, "link_state", &r->link_state) < 0 ||
	    get_bool(ld, doc, m, "boot", &r->boot) < 0 ||
	    get_bool(ld, doc, m, "own_port", &r->own_port) < 0 ||
	    get_bool(ld, doc, m, "step_wait", &r->step_wait) < 0 ||
	    get_bool(ld, doc, m, "end_summary", &r->end_summary) < 0 ||
	    get_bool(ld, doc, m, "fs_stall", &r->fs_stall) < 0 ||
	    get_bool(ld, doc, m, "attached", &r->attached) < 0 ||
	    get_bool(ld, doc, m, "heeds_level", &r->heeds_level) < 0 ||
	    get_bool(ld, doc, m, "counter", &r->counter) < 0 || get_last(ld, doc, m, r) < 0 ||
	    get_not_after(ld, doc, m, r) < 0 || get_after(ld, doc, m, r) < 0 ||
	    get_not_beside(ld, doc, m, r) < 0)
		goto out;
	if (!r->subcls && !pm_is_kind(r->cls, NULL, PM_K_NONE)) {
		fail(ld, m, "rule %s: missing 'subclass'", r->id);
		goto out;
	}
	if (!r->subcls && !(r->subcls = strdup(pm_kind(PM_K_NONE)->sub)))
		goto out;
	if (pm_taxonomy_check(r->cls, r->subcls) < 0) {
		fail(ld, m, "rule %s: '%s/%s' is not in the taxonomy", r->id, r->cls, r->subcls);
		goto out;
	}
	if ((k = enum_lookup(role, role_names, PM_ROLE__COUNT)) < 0) {
		fail(ld, m,
		     "rule %s: role '%s' is not one of origin, cascade, teardown, "
		     "confirmation, progress, context",
		     r->id, role);
		goto out;
	}
	r->role = k;
	if ((k = enum_lookup(strength, strengths, 3)) < 0) {
		fail(ld, m, "rule %s: strength '%s' is not weak, medium or strong", r->id,
		     strength);
		goto out;
	}
	r->strength = (enum pm_strength)(k + 1);
	if (r->outcome && enum_lookup(r->outcome, outcomes, 9) < 0) {
		fail(ld, m,
		     "rule %s: outcome '%s' is not one of TIMEOUT, CANCELLED, NODE_FAIL, "
		     "OUT_OF_MEMORY, PREEMPTED, REQUEUED, COMPLETED, PENDING, FAILED",
		     r->id, r->outcome);
		goto out;
	}
	if (parse_sources(ld, doc, map_get(doc, m, "sources"), r) < 0 ||
	    parse_formats(ld, doc, map_get(doc, m, "formats"), r) < 0)
		goto out;
	r->hardware = pm_class_hardware(r->cls);
	if (r->hardware && r->role == PM_ROLE_ORIGIN && (r->sources & ~trusted)) {
		fail(ld, m,
		     "rule %s: a hardware origin rule may only read sources the job's "
		     "user cannot write (not app_log); write the app_log echo as a "
		     "confirmation rule",
		     r->id);
		goto out;
	}
	/* on a software rule of another role than origin or confirmation (an origin demoted
	 * to context in a revised set) it is inert: only those readings are ever set aside */
	if (r->generic && r->hardware) {
		fail(ld, m,
		     "rule %s: 'generic' is for software rules (a line's kind, which a specific "
		     "rule's reading of the same line overrides), not hardware ones",
		     r->id);
		goto out;
	}
	/* inert on another role, as 'generic' */
	if (r->reasonless && r->hardware) {
		fail(ld, m,
		     "rule %s: 'reasonless' is for software rules (a set-up failure whose line "
		     "gives no reason, which a peer's refusal beside it explains)",
		     r->id);
		goto out;
	}
	/* inert on another role, as 'reasonless' */
	if (r->formed && r->hardware) {
		fail(ld, m,
		     "rule %s: 'formed' is for software rules (a set-up kind's failure whose line "
		     "names the running collective that failed)",
		     r->id);
		goto out;
	}
	if (r->handler && (!r->chain || r->role != PM_ROLE_CONTEXT)) {
		fail(ld, m,
		     "rule %s: 'handler' is for context rules with 'chain' (a line that says the "
		     "exception after it was raised while handling the one before)",
		     r->id);
		goto out;
	}
	/* inert on another role (an origin demoted in a revised rule set), as 'reasonless' */
	if (r->comm_crash && r->hardware) {
		fail(ld, m,
		     "rule %s: 'comm_crash' is for software rules (a process crashing inside the "
		     "communication library)",
		     r->id);
		goto out;
	}
	if (r->link_state && (!r->hardware || r->sources != 1u << PM_SRC_KERNEL_LOG)) {
		fail(ld, m,
		     "rule %s: 'link_state' is for hardware rules reading the kernel log alone (a "
		     "port's link going down)",
		     r->id);
		goto out;
	}
	if (r->boot && (r->role != PM_ROLE_CONTEXT || !pm_is_kind(r->cls, NULL, PM_K_NONE) ||
			r->sources != 1u << PM_SRC_KERNEL_LOG)) {
		fail(ld, m,
		     "rule %s: 'boot' is for context rules of class none reading the kernel log "
		     "alone (a kernel's boot banner)",
		     r->id);
		goto out;
	}
	if (r->own_port && (!r->hardware || r->role != PM_ROLE_CONFIRMATION ||
			    !(r->sources & 1u << PM_SRC_APP_LOG))) {
		fail(ld, m,
		     "rule %s: 'own_port' is for hardware confirmations of the job's output (an "
		     "adapter's event about its own port or device)",
		     r->id);
		goto out;
	}
	if (r->step_wait &&
	    (r->hardware || (r->role != PM_ROLE_ORIGIN && r->role != PM_ROLE_CONTEXT))) {
		fail(ld, m,
		     "rule %s: 'step_wait' is for software origin rules (srun waiting to create a "
		     "step) and context rules (the step created after the wait)",
		     r->id);
		goto out;
	}
	if (r->end_summary && (!r->outcome || r->sources != 1u << PM_SRC_APP_LOG)) {
		fail(ld, m,
		     "rule %s: 'end_summary' is for rules with an outcome that read the job's "
		     "text alone (sources: [app_log]): a summary of a job's end gathered beside it",
		     r->id);
		goto out;
	}
	/* a filesystem client's own kernel line, its loss or its server back: att_sched.c reads
	 * the two as a pair, and neither is a symptom of its own */
	if (r->fs_stall &&
	    (r->role != PM_ROLE_CONTEXT ||
	     (r->sources != 1u << PM_SRC_KERNEL_LOG && r->sources != 1u << PM_SRC_APP_LOG) ||
	     (strcmp(r->cls, "storage") && !pm_is_kind(r->cls, NULL, PM_K_NONE)))) {
		fail(ld, m,
		     "rule %s: 'fs_stall' is for context rules reading the kernel log alone or the "
		     "job's output alone, of the storage class (a filesystem client losing its "
		     "server) or of none (its server back)",
		     r->id);
		goto out;
	}
	if (r->last &&
	    (r->hardware || (r->role != PM_ROLE_ORIGIN && r->role != PM_ROLE_CONFIRMATION))) {
		fail(ld, m,
		     "rule %s: 'last' is for software origin and confirmation rules (a line a "
		     "program prints alike when it stops and when it goes on)",
		     r->id);
		goto out;
	}
	if (r->attached && !r->nonfatal) {
		fail(ld, m, "rule %s: 'attached' goes with 'nonfatal' (the failure line under it)",
		     r->id);
		goto out;
	}
	if ((r->nonfatal && r->role != PM_ROLE_CONTEXT) ||
	    (r->chain && r->role != PM_ROLE_CONTEXT && !r->generic)) {
		fail(ld, m, "rule %s: '%s' is for context rules (a line beside a failure's)%s",
		     r->id, r->nonfatal ? "nonfatal" : "chain",
		     r->nonfatal ? "" : " or generic ones (a head whose reason follows)");
		goto out;
	}
	if (!!r->pattern == !!cond) {
		fail(ld, m, "rule %s: needs exactly one of 'pattern' and 'condition'", r->id);
		goto out;
	}
	if (parse_refines(ld, doc, map_get(doc, m, "refines"), r, trusted) < 0)
		goto out;
	if (r->counter && !cond) {
		fail(ld, m,
		     "rule %s: 'counter' is for condition rules (a count read at collection, with "
		     "no baseline to date it)",
		     r->id);
		goto out;
	}
	if (r->after_re && cond) {
		fail(ld, m, "rule %s: 'after' is for pattern rules (a line after another)", r->id);
		goto out;
	}
	if (r->not_after_re && cond) {
		fail(ld, m, "rule %s: 'not_after' is for pattern rules (a line after another)",
		     r->id);
		goto out;
	}
	if (r->not_beside_re && cond) {
		fail(ld, m, "rule %s: 'not_beside' is for pattern rules (a row of a listing)",
		     r->id);
		goto out;
	}
	if (cond) {
		r->has_cond = true;
		if (parse_cond(ld, map_get(doc, m, "condition"), cond, &r->cond) < 0)
			goto out;
	} else if (compile_pcre(ld, map_get(doc, m, "pattern"), r) < 0) {
		goto out;
	}
	rc = 0;
out:
	free(role);
	free(strength);
	free(cond);
	return rc;
}

/* ---- ruleset.yaml ---- */

static const char *const cont_ids[] = {"none",	  "retry",   "retry-exclude-node",
				       "fix-job", "requeue", "contact-operators"};

/* An alternative containment of a decision block (node_specific, every_node), if present. */
static int parse_alt(struct loader *ld, yaml_document_t *doc, const char *key, yaml_node_t *m,
		     const char *name, char **id, char **action, char **owner)
{
	static const char *const ckeys[] = {"id", "action", "owner", NULL};
	yaml_node_t *ns = map_get(doc, m, name);

	if (!ns)
		return 0;
	if (ns->type != YAML_MAPPING_NODE)
		return fail(ld, ns, "%s must be a mapping", name);
	if (check_keys(ld, doc, ns, ckeys, name) < 0 || get_str(ld, doc, ns, "id", true, id) < 0 ||
	    get_str(ld, doc, ns, "action", true, action) < 0 ||
	    get_str(ld, doc, ns, "owner", true, owner) < 0)
		return -1;
	if (enum_lookup(*id, cont_ids, 6) < 0)
		return fail(ld, ns, "%s: %s id '%s' is not a containment id", key, name, *id);
	return 0;
}

static int parse_decision(struct loader *ld, yaml_document_t *doc, const char *key, yaml_node_t *m,
			  struct pm_decision *d)
{
	static const char *const keys[] = {"owner",	"containment",	 "repair",     "overturn",
					   "next_test", "node_specific", "every_node", NULL};
	static const char *const ckeys[] = {"id", "action", "owner", NULL};
	static const char *const rkeys[] = {"action", "owner", "requires", NULL};
	yaml_node_t *c, *r;
	char *slash;

	d->key = strdup(key);
	if (!d->key)
		return -1;
	slash = strchr(d->key, '/');
	if (slash)
		*slash = '\0';
	if (pm_taxonomy_check(d->key, slash ? slash + 1 : NULL) < 0 &&
	    !pm_is_kind(d->key, NULL, PM_K_UNKNOWN))
		return fail(ld, m, "classes: '%s' is not in the taxonomy", key);
	if (slash)
		*slash = '/';
	if (m->type != YAML_MAPPING_NODE || check_keys(ld, doc, m, keys, key) < 0)
		return m->type != YAML_MAPPING_NODE ? fail(ld, m, "%s must be a mapping", key) : -1;
	c = map_get(doc, m, "containment");
	r = map_get(doc, m, "repair");
	if (!c || c->type != YAML_MAPPING_NODE)
		return fail(ld, m, "%s: missing 'containment' mapping", key);
	if (check_keys(ld, doc, c, ckeys, "containment") < 0 ||
	    get_str(ld, doc, m, "owner", true, &d->owner) < 0 ||
	    get_str(ld, doc, c, "id", true, &d->cont_id) < 0 ||
	    get_str(ld, doc, c, "action", true, &d->cont_action) < 0 ||
	    get_str(ld, doc, c, "owner", true, &d->cont_owner) < 0 ||
	    get_str(ld, doc, m, "overturn", true, &d->overturn) < 0 ||
	    get_str(ld, doc, m, "next_test", true, &d->next_test) < 0)
		return -1;
	if (enum_lookup(d->cont_id, cont_ids, 6) < 0)
		return fail(ld, c,
			    "%s: containment id '%s' is not one of none, retry, "
			    "retry-exclude-node, fix-job, requeue, contact-operators",
			    key, d->cont_id);
	if (parse_alt(ld, doc, key, m, "node_specific", &d->node_id, &d->node_action,
		      &d->node_owner) < 0 ||
	    parse_alt(ld, doc, key, m, "every_node", &d->every_id, &d->every_action,
		      &d->every_owner) < 0)
		return -1;
	if (r) {
		if (r->type != YAML_MAPPING_NODE || check_keys(ld, doc, r, rkeys, "repair") < 0 ||
		    get_str(ld, doc, r, "action", true, &d->repair_action) < 0 ||
		    get_str(ld, doc, r, "owner", true, &d->repair_owner) < 0 ||
		    get_str(ld, doc, r, "requires", true, &d->repair_requires) < 0)
			return r->type != YAML_MAPPING_NODE ?
				       fail(ld, r, "repair must be a mapping") :
				       -1;
	}
	return 0;
}

static int parse_header(struct loader *ld, yaml_document_t *doc, yaml_node_t *root)
{
	static const char *const keys[] = {"ruleset", "version", "tuning",
					   "classes", "rules",	 NULL};
	static const char *const tkeys[] = {"skew_tolerance_ms", "job_window_grace_s",
					    "evidence_per_group", "progress_stall_s", NULL};
	struct pm_ruleset *rs = ld->rs;
	yaml_node_t *t, *c;
	yaml_node_pair_t *p;
	double v;

	if (check_keys(ld, doc, root, keys, "ruleset") < 0 ||
	    get_str(ld, doc, root, "ruleset", true, &rs->id) < 0 ||
	    get_str(ld, doc, root, "version", true, &rs->version) < 0)
		return -1;
	if ((t = map_get(doc, root, "tuning"))) {
		if (t->type != YAML_MAPPING_NODE || check_keys(ld, doc, t, tkeys, "tuning") < 0)
			return t->type != YAML_MAPPING_NODE ?
				       fail(ld, t, "tuning must be a mapping") :
				       -1;
		v = rs->skew_s * 1000;
		if (get_num(ld, doc, t, "skew_tolerance_ms", 0, 3600000, &v) < 0)
			return -1;
		rs->skew_s = v / 1000;
		if (get_num(ld, doc, t, "job_window_grace_s", 0, 86400, &rs->grace_s) < 0 ||
		    get_num(ld, doc, t, "progress_stall_s", 0, 864000, &rs->progress_stall_s) < 0)
			return -1;
		v = rs->per_group;
		if (get_num(ld, doc, t, "evidence_per_group", 1, 1000, &v) < 0)
			return -1;
		rs->per_group = (unsigned)v;
	}
	c = map_get(doc, root, "classes");
	if (!c)
		return 0;
	if (c->type != YAML_MAPPING_NODE)
		return fail(ld, c, "classes must be a mapping");
	for (p = c->data.mapping.pairs.start; p < c->data.mapping.pairs.top; p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		struct pm_decision *d;

		if (!k)
			return fail(ld, c, "classes: keys must be class ids");
		if (rs->ndec == ld->adec && pm_grow((void **)&rs->dec, &ld->adec, sizeof(*d)) < 0)
			return -1;
		d = &rs->dec[rs->ndec++];
		if (parse_decision(ld, doc, k, yaml_document_get_node(doc, p->value), d) < 0)
			return -1;
	}
	return 0;
}

/* ---- files ---- */

static int load_rules_list(struct loader *ld, yaml_document_t *doc, yaml_node_t *list)
{
	struct pm_ruleset *rs = ld->rs;
	yaml_node_item_t *it;

	if (list->type != YAML_SEQUENCE_NODE)
		return fail(ld, list, "'rules' must be a list");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		struct pm_rule *r;

		if (rs->nrules == ld->arules &&
		    pm_grow((void **)&rs->rules, &ld->arules, sizeof(*r)) < 0)
			return -1;
		r = &rs->rules[rs->nrules++];
		if (parse_rule(ld, doc, yaml_document_get_node(doc, *it), r) < 0)
			return -1;
		for (size_t i = 0; i + 1 < rs->nrules; i++)
			if (!strcmp(rs->rules[i].id, r->id))
				return fail(ld, yaml_document_get_node(doc, *it),
					    "rule id '%s' is already used at %s:%d", r->id,
					    rs->rules[i].file, rs->rules[i].line);
	}
	return 0;
}

static int load_file(struct loader *ld, const char *path, const char *name, struct pm_sha256 *dig)
{
	FILE *f = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *rules;
	bool have_parser = false, have_doc = false;
	int rc = -1;

	ld->file = name;
	f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		snprintf(ld->err, ld->errlen, "%s: %s", name, strerror(e));
		errno = e;
		return -1;
	}
	do {
		if (len == cap) {
			char *nb;
			cap = cap ? 2 * cap : 65536;
			if (cap > (64u << 20)) {
				fail(ld, NULL, "rule file larger than 64 MiB");
				goto out;
			}
			nb = realloc(buf, cap);
			if (!nb)
				goto out;
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fail(ld, NULL, "read error");
		goto out;
	}
	pm_sha256_update(dig, name, strlen(name) + 1);
	pm_sha256_update(dig, buf, len);

	if (!yaml_parser_initialize(&parser))
		goto out;
	have_parser = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(ld->err, ld->errlen, "%s:%lu: YAML: %s", name,
			 (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "syntax error");
		errno = EINVAL;
		goto out;
	}
	have_doc = true;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = 0; /* an empty file is allowed */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		fail(ld, root, "the file must be a mapping with 'rules:'");
		goto out;
	}
	if (map_get(&doc, root, "ruleset")) {
		if (ld->rs->id) {
			fail(ld, root, "a second 'ruleset:' header (the first is elsewhere)");
			goto out;
		}
		if (parse_header(ld, &doc, root) < 0)
			goto out;
	} else {
		static const char *const keys[] = {"rules", NULL};
		if (check_keys(ld, &doc, root, keys, "rule file") < 0)
			goto out;
	}
	rules = map_get(&doc, root, "rules");
	if (rules && load_rules_list(ld, &doc, rules) < 0)
		goto out;
	rc = 0;
out:
	if (have_doc)
		yaml_document_delete(&doc);
	if (have_parser)
		yaml_parser_delete(&parser);
	free(buf);
	if (f)
		fclose(f);
	return rc;
}

static int list_yaml(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t a = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		if (*n == a && pm_grow((void **)names, &a, sizeof(char *)) < 0)
			goto oom;
		if (!((*names)[(*n)++] = strdup(e->d_name)))
			goto oom;
	}
	closedir(d);
	qsort(*names, *n, sizeof(char *), pm_cmp_str);
	return 0;
oom:
	closedir(d);
	errno = ENOMEM;
	return -1;
}

/* ---- the scanning database ---- */

/*
 * What Vectorscan compiles of each rule: prefilter.c.
 *
 * One database per source kind, holding only the rules that apply to that source: the
 * scanner would drop any other rule's hit anyway, and a kernel-only pattern with a costly
 * prefix (an unbounded class before its literal) no longer slows the scan of the job's
 * output.  They are compiled in stream mode, which takes about half the time of block mode
 * for the same patterns; the scanner resets the stream after every line-aligned chunk, so
 * each chunk is matched exactly as a block scan would match it.  If any of them cannot be
 * compiled, the single block-mode database of every pattern is compiled as before, and its
 * error (or, should it compile, the database itself) is what the caller gets.  Each is
 * compiled from the rules' cut expressions first and, should that fail, from their whole
 * prefilter forms (WHOLE), whose errors name the pattern as its author wrote it.
 *
 * The databases are compiled one after the other (the on-disk cache, hscache.c, pays the
 * compile once per rule set).  This file once compiled the job output's database in a second
 * thread, and scans then missed a job's first output line now and then; the thread was not
 * the cause, only a change of where malloc put the scanned chunks: Vectorscan 5.4.9's
 * AVX-512 implementation misses matches by the data's address (hsrun.c). */
static int compile_one(struct pm_ruleset *rs, int src, unsigned mode, bool whole,
		       hs_database_t **db, char *err, size_t errlen)
{
	const char **pats = NULL;
	unsigned *flags = NULL, *ids = NULL, n = 0, a = 0;
	hs_compile_error_t *ce = NULL;
	int rc = -1;

	*db = NULL;
	for (size_t i = 0; i < rs->nrules; i++) {
		const struct pm_rule *r = &rs->rules[i];
		size_t ne;
		char **e;
		if (!r->pattern || r->deprecated || (src >= 0 && !(r->sources & (1u << src))))
			continue;
		if (!(e = whole ? calloc(1, sizeof(*e)) : pm_prefilter_exprs(r->pattern, &ne)))
			goto out;
		if (whole && !(e[0] = pm_prefilter_form(r->pattern))) {
			free(e);
			goto out;
		}
		ne = whole ? 1 : ne;
		if (n + ne > a) {
			unsigned na = a ? 2 * a : 256;
			while (na < n + ne)
				na *= 2;
			const char **np = realloc(pats, na * sizeof(*pats));
			pats = np ? np : pats;
			unsigned *nf = np ? realloc(flags, na * sizeof(*flags)) : NULL;
			flags = nf ? nf : flags;
			unsigned *ni = nf ? realloc(ids, na * sizeof(*ids)) : NULL;
			ids = ni ? ni : ids;
			if (!ni) {
				for (size_t k = 0; k < ne; k++)
					free(e[k]);
				free(e);
				goto out;
			}
			a = na;
		}
		for (size_t k = 0; k < ne; k++, n++) {
			pats[n] = e[k];
			flags[n] = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
			ids[n] = (unsigned)i;
		}
		free(e);
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	if (pm_hs_compile(pats, flags, ids, n, mode, db, &ce) != HS_SUCCESS) {
		const struct pm_rule *r =
			ce && ce->expression >= 0 ? &rs->rules[ids[ce->expression]] : NULL;
		if (r)
			snprintf(err, errlen, "%s:%d: rule %s: pattern cannot be scanned: %s",
				 r->file, r->line, r->id, ce->message);
		else
			snprintf(err, errlen, "compiling the rule set: %s",
				 ce ? ce->message : "unknown error");
		hs_free_compile_error(ce);
		*db = NULL;
		errno = EINVAL;
		goto out;
	}
	rc = 0;
out:
	for (unsigned i = 0; pats && i < n; i++)
		free((char *)pats[i]);
	free(pats);
	free(flags);
	free(ids);
	return rc;
}

/* The scratch prototype, valid for every database of RS. */
static int alloc_scratch(struct pm_ruleset *rs, char *err, size_t errlen)
{
	hs_database_t *all[sizeof(rs->sdb) / sizeof(rs->sdb[0]) + 1];
	size_t n = 0;

	all[n++] = rs->db;
	for (size_t i = 0; i < sizeof(rs->sdb) / sizeof(rs->sdb[0]); i++)
		all[n++] = rs->sdb[i];
	for (size_t i = 0; i < n; i++)
		if (all[i] && hs_alloc_scratch(all[i], &rs->scratch) != HS_SUCCESS) {
			snprintf(err, errlen, "cannot allocate scanning scratch space");
			errno = ENOMEM;
			return -1;
		}
	return 0;
}

static int compile_db(struct pm_ruleset *rs, char *err, size_t errlen)
{
	_Static_assert(PM_SRC__COUNT <= sizeof(rs->sdb) / sizeof(rs->sdb[0]), "sdb too small");
	int src, ok = 1;

	for (src = 0; src < PM_SRC__COUNT && ok; src++)
		ok = compile_one(rs, src, HS_MODE_STREAM, false, &rs->sdb[src], err, errlen) == 0 ||
		     compile_one(rs, src, HS_MODE_STREAM, true, &rs->sdb[src], err, errlen) == 0;
	if (ok)
		return alloc_scratch(rs, err, errlen);
	for (src = 0; src < PM_SRC__COUNT; src++) {
		hs_free_database(rs->sdb[src]);
		rs->sdb[src] = NULL;
	}
	err[0] = '\0';
	if (compile_one(rs, -1, HS_MODE_BLOCK, true, &rs->db, err, errlen) < 0)
		return -1;
	return alloc_scratch(rs, err, errlen);
}

struct pm_ruleset *pm_ruleset_load(const char *dir, char *err, size_t errlen)
{
	struct pm_ruleset *rs = calloc(1, sizeof(*rs));
	struct loader ld = {.rs = rs, .err = err, .errlen = errlen};
	char **names = NULL, path[4096], dummy[1];
	size_t n = 0;
	struct pm_sha256 dig = {0};
	unsigned char d[32];

	if (!err || !errlen) {
		err = ld.err = dummy;
		errlen = ld.errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!rs)
		return NULL;
	rs->skew_s = 2.0;
	rs->grace_s = 300;
	rs->per_group = 3;
	rs->progress_stall_s = 900;
	if (!(rs->dir = strdup(dir)))
		goto fail;
	if (list_yaml(dir, &names, &n) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		errno = e;
		goto fail;
	}
	if (!n) {
		snprintf(err, errlen, "%s: no *.yaml rule files", dir);
		errno = ENOENT;
		goto fail;
	}
	pm_sha256_init(&dig);
	for (size_t i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path)) {
			snprintf(err, errlen, "%s: path too long", dir);
			errno = ENAMETOOLONG;
			goto fail;
		}
		if (load_file(&ld, path, names[i], &dig) < 0)
			goto fail;
	}
	if (!rs->id) {
		snprintf(err, errlen, "%s: no file has the 'ruleset:' header (id, version)", dir);
		errno = EINVAL;
		goto fail;
	}
	pm_sha256_final(&dig, d);
	pm_sha256_hex(d, rs->digest);
	if (compile_db(rs, err, errlen) < 0)
		goto fail;
	rs->mctx = pcre2_match_context_create(NULL);
	if (!rs->mctx)
		goto fail;
	/* A pathological pattern costs bounded time per line, never a hung epilog. */
	pcre2_set_match_limit(rs->mctx, 200000);
	pcre2_set_depth_limit(rs->mctx, 2000);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rs;
fail:
	if (dig.ctx)
		pm_sha256_final(&dig, d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	{
		int e = errno ? errno : ENOMEM;
		pm_ruleset_destroy(rs);
		errno = e;
	}
	return NULL;
}

static void free_rule(struct pm_rule *r)
{
	free(r->id);
	free(r->cls);
	free(r->subcls);
	free(r->summary);
	free(r->outcome);
	free(r->pattern);
	pcre2_code_free(r->re);
	pcre2_code_free(r->last_re);
	pcre2_code_free(r->not_after_re);
	pcre2_code_free(r->after_re);
	pcre2_code_free(r->not_beside_re);
	free(r->cond.fact);
	free(r->cond.rhs_fact);
	for (size_t i = 0; i < r->nrefines; i++) {
		free(r->refines_cls[i]);
		free(r->refines_sub[i]);
	}
	free(r->file);
}

void pm_ruleset_destroy(struct pm_ruleset *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->nrules; i++)
		free_rule(&rs->rules[i]);
	free(rs->rules);
	for (size_t i = 0; i < rs->ndec; i++) {
		struct pm_decision *d = &rs->dec[i];
		free(d->key);
		free(d->owner);
		free(d->cont_id);
		free(d->cont_action);
		free(d->cont_owner);
		free(d->repair_action);
		free(d->repair_owner);
		free(d->repair_requires);
		free(d->overturn);
		free(d->next_test);
		free(d->node_id);
		free(d->node_action);
		free(d->node_owner);
		free(d->every_id);
		free(d->every_action);
		free(d->every_owner);
	}
	free(rs->dec);
	hs_free_scratch(rs->scratch);
	hs_free_database(rs->db);
	for (size_t i = 0; i < sizeof(rs->sdb) / sizeof(rs->sdb[0]); i++)
		hs_free_database(rs->sdb[i]);
	pcre2_match_context_free(rs->mctx);
	free(rs->dir);
	free(rs->id);
	free(rs->version);
	free(rs);
}

const struct pm_decision *pm_ruleset_decision(const struct pm_ruleset *rs, const char *cls,
					      const char *subcls)
{
	char key[128];
	const struct pm_decision *fallback = NULL;

	snprintf(key, sizeof(key), "%s/%s", cls, subcls ? subcls : "");
	for (size_t i = 0; i < rs->ndec; i++) {
		if (!strcmp(rs->dec[i].key, key))
			return &rs->dec[i];
		if (!strcmp(rs->dec[i].key, cls))
			fallback = &rs->dec[i];
	}
	return fallback;
}

const char *pm_ruleset_id(const struct pm_ruleset *rs)
{
	return rs->id;
}
const char *pm_ruleset_version(const struct pm_ruleset *rs)
{
	return rs->version;
}
const char *pm_ruleset_digest(const struct pm_ruleset *rs)
{
	return rs->digest;
}
size_t pm_ruleset_count(const struct pm_ruleset *rs)
{
	return rs->nrules;
}

size_t pm_ruleset_jitted(const struct pm_ruleset *rs, size_t *n)
{
	size_t jitted = 0;

	*n = 0;
	for (size_t i = 0; i < rs->nrules; i++) {
		size_t size = 0;

		if (!rs->rules[i].re)
			continue;
		++*n;
		if (pcre2_pattern_info(rs->rules[i].re, PCRE2_INFO_JITSIZE, &size) == 0 && size)
			jitted++;
	}
	return jitted;
}

const char *pm_ruleset_rule_id(const struct pm_ruleset *rs, size_t i)
{
	return i < rs->nrules ? rs->rules[i].id : NULL;
}

/* A line of no words, only the punctuation every log line has between its words: a rule
 * whose scanning form finds it is confirmed by PCRE2 on nearly every line of a job's
 * output.  That is what an alternative of look-arounds alone does ("(?:: |; )(?:Stale file
 * handle|(?<=\[Errno 116\] ))": Vectorscan drops the look-behind, and what is left is ": "),
 * and one such rule once made the fixtures' scans ten times slower. */
static const char broad_line[] = "a: b; c = d, e (f) [g] <h> 'i' \"j\" - k/l | m # n\n";

static int on_broad(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
		    void *ctx)
{
	(void)from;
	(void)to;
	(void)flags;
	((unsigned char *)ctx)[id] = 1;
	return 0;
}

int pm_ruleset_broad(const struct pm_ruleset *rs, unsigned char *broad)
{
	hs_scratch_t *sc = NULL;
	int rc = 0;

	memset(broad, 0, rs->nrules);
	if (!rs->scratch)
		return 0;
	if (hs_clone_scratch(rs->scratch, &sc) != HS_SUCCESS)
		return -1;
	for (size_t k = 0; k <= sizeof(rs->sdb) / sizeof(rs->sdb[0]) && !rc; k++) {
		const hs_database_t *db = k ? rs->sdb[k - 1] : rs->db;
		hs_stream_t *st = NULL;
		if (!db)
			continue;
		if (k && pm_hs_open(db, &st) != HS_SUCCESS) {
			rc = -1;
			break;
		}
		if (pm_hs_chunk(db, st, broad_line, sizeof(broad_line) - 1, sc, on_broad, broad) !=
		    HS_SUCCESS)
			rc = -1;
		if (st)
			pm_hs_close(st);
	}
	hs_free_scratch(sc);
	return rc;
}

double pm_ruleset_skew_s(const struct pm_ruleset *rs)
{
	return rs->skew_s;
}
