/*
 * prefilter.c - what Vectorscan is given of a rule's pattern.
 *
 * The scan only finds the lines worth confirming: a hit names a rule and where its match
 * ends, the scanner takes the line around that end, and PCRE2 decides on that line with the
 * pattern as written (scan.c, confirm).  So what Vectorscan compiles need not be the pattern
 * itself, only something that ends a match on every line where the pattern ends one.  Two
 * forms of a pattern are made here, each a superset of the one before:
 *
 *  1. pm_prefilter_form: the pattern without its anchors (below);
 *  2. pm_prefilter_exprs: that form cut into expressions that are cheaper to scan for, each
 *     compiled with the rule's id, whose matches together end wherever the form's do:
 *     - the top-level alternatives, one expression each ("A|B" ends where A or B ends);
 *     - a group that is all that is left, opened ("(?:A|B)" is "A|B");
 *     - a leading run of pieces dropped, up to a literal of MIN_LIT characters or more: a
 *       match of "X Y" ends where a match of Y does, whatever X was.
 *     Measured on a job's output of training-progress lines (bench/README.md, "The prefilter's
 *     cuts"), the job output's database scanned about three times faster: a pattern such as
 *     "(?:(?<exc>\b[A-Za-z]*Error): )?(?:: |; |\bwhat\(\): +)Stale file handle" kept
 *     Vectorscan's automata running over every ": " of the text, where "Stale file handle"
 *     is one literal search.
 *
 * Nothing is cut where the cut could narrow what matches: a pattern with a back reference, a
 * conditional, a subroutine call, \Q...\E quoting, extended mode or a branch reset is left
 * whole, and so is a run that would drop an inline option ("(?i)"), whose effect reaches past
 * it.  The scanner's verdicts do not change: PCRE2 confirms every hit as before, on the same
 * lines (rules check, and bench/same_verdicts.sh on the generated stores).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "ruleset.h"

#define PREFILTER_DEPTH 64
#define MIN_LIT 6    /* literal characters a cut must leave at its front */
#define MAX_EXPRS 64 /* expressions one pattern may become */

/* The length of the POSIX class at P ("[:alpha:]", "[:^digit:]"), as PCRE2 reads one: 0 when
 * a ']' comes before its ":]" ("[[:]x]" is a class of '[' and ':', then "x]"). */
static size_t posix_class(const char *p)
{
	size_t i = 2;

	if (p[i] == '^')
		i++;
	while (pm_in_isalpha(p[i]))
		i++;
	return p[i] == ':' && p[i + 1] == ']' ? i + 2 : 0;
}

/* Vectorscan sees the pattern without a leading '^' and without any '$': lines keep their
 * prefixes in the buffer it scans, and a structured record's fields follow its message (a
 * JSON line's '"}'), so the anchored form would miss them.  PCRE2 confirms on the stripped
 * line, where the anchors mean what the author wrote.
 *
 * PATTERN as the scan's prefilter sees it: a copy without every '^' and '$' outside a
 * character class, an escape or a \Q...\E quote: a superset of its matches, as a
 * prefilter's must be.  An anchor inside a negative lookaround stays (without it the
 * lookaround would refuse more), and so does a '^' of an option group, "(?^i)".  So an
 * alternative anchored at a message's start ("...|^No devices were found") is found behind a
 * prefix too (srun's label, a logger's), which the confirmation peels.  NULL when out of
 * memory. */
char *pm_prefilter_form(const char *p)
{
	size_t o = 0, depth = 0, neg = 0; /* groups open; of them, negative lookarounds */
	bool isneg[PREFILTER_DEPTH];
	char *out = malloc(strlen(p) + 1);
	bool cls = false, quote = false;

	if (!out)
		return NULL;
	for (size_t i = 0; p[i]; i++) {
		if (!quote && !cls && p[i] == '(') {
			bool n = p[i + 1] == '?' &&
				 (p[i + 2] == '!' || (p[i + 2] == '<' && p[i + 3] == '!'));
			if (depth < PREFILTER_DEPTH)
				isneg[depth] = n;
			depth++;
			neg += n;
			out[o++] = p[i];
			continue;
		}
		if (!quote && !cls && p[i] == ')' && depth) {
			depth--;
			if (depth < PREFILTER_DEPTH && isneg[depth])
				neg--;
			out[o++] = p[i];
			continue;
		}
		if (!quote && !cls && p[i] == '^' && !neg &&
		    !(i >= 2 && p[i - 1] == '?' && p[i - 2] == '('))
			continue;
		if (quote) {
			quote = !(p[i] == '\\' && p[i + 1] == 'E');
		} else if (p[i] == '\\' && p[i + 1]) {
			quote = p[i + 1] == 'Q';
			out[o++] = p[i++];
		} else if (cls && p[i] == '[' && p[i + 1] == ':' && posix_class(p + i)) {
			size_t e = i + posix_class(p + i) - 1; /* "[:alpha:]" */
			while (i < e)
				out[o++] = p[i++];
		} else if (cls) {
			cls = p[i] != ']';
		} else if (p[i] == '[') {
			cls = true;
			out[o++] = p[i];
			/* "[]...]" and "[^]...]": the first ']' is a member */
			if (p[i + 1] == '^')
				out[o++] = p[++i];
			if (p[i + 1] == ']')
				out[o++] = p[++i];
			continue;
		} else if (p[i] == '$' && !neg) {
			continue;
		}
		out[o++] = p[i];
	}
	out[o] = '\0';
	return out;
}

/* ---- the cuts ---- */

enum piece {
	P_LIT,	 /* one literal character: "a", "\.", "\(" */
	P_OTHER, /* a class, an escape that is not a literal, '.', an anchor */
	P_GROUP, /* "(...)", "(?:...)", "(?<name>...)": may be opened when it is all that is left */
	P_ZERO,	 /* a lookaround, "\b": matches no character */
	P_OPTION, /* "(?i)", "(?i:...)" and the like: never dropped, never opened */
};

struct pc {
	enum piece kind;
	size_t at, end; /* the piece's bytes, without its quantifier */
	bool quant;	/* followed by a quantifier */
};

/* Whether escape "\C" is a literal character: punctuation quoted. */
static bool lit_escape(char c)
{
	return c && strchr(".()[]{}|*+?^$/\\-'\"`:;,=<>!@#%&~ _", c);
}

/* The end of the class opened at P[I] ('['), 0 when it does not close. */
static size_t class_end(const char *p, size_t n, size_t i)
{
	i++;
	if (i < n && p[i] == '^')
		i++;
	if (i < n && p[i] == ']')
		i++;
	while (i < n && p[i] != ']') {
		if (p[i] == '\\' && i + 1 < n)
			i++;
		else if (p[i] == '[' && i + 1 < n && p[i + 1] == ':') {
			const char *e = memchr(p + i, ']', n - i);
			if (e && e > p + i + 2 && e[-1] == ':')
				i = (size_t)(e - p);
		}
		i++;
	}
	return i < n ? i + 1 : 0;
}

/* The end of the group opened at P[I] ('('), 0 when it does not close. */
static size_t group_end(const char *p, size_t n, size_t i)
{
	size_t depth = 0;

	while (i < n) {
		if (p[i] == '\\') {
			i += 2;
			continue;
		}
		if (p[i] == '[') {
			if (!(i = class_end(p, n, i)))
				return 0;
			continue;
		}
		if (p[i] == '(')
			depth++;
		else if (p[i] == ')' && !--depth)
			return i + 1;
		i++;
	}
	return 0;
}

/* The end of the quantifier at P[I], I when there is none. */
static size_t quant_end(const char *p, size_t n, size_t i)
{
	size_t j = i;

	if (i < n && (p[i] == '?' || p[i] == '*' || p[i] == '+'))
		j = i + 1;
	else if (i < n && p[i] == '{') {
		size_t k = i + 1;
		while (k < n && (pm_in_isdigit(p[k]) || p[k] == ','))
			k++;
		if (k < n && p[k] == '}' && k > i + 1 && pm_in_isdigit(p[i + 1]))
			j = k + 1;
	}
	if (j > i && j < n && (p[j] == '?' || p[j] == '+')) /* lazy, possessive */
		j++;
	return j;
}

/* The pieces of P (N bytes) at top level, at most MAX; -1 when a piece is not understood. */
static int pieces(const char *p, size_t n, struct pc *v, size_t max, size_t *nv)
{
	size_t i = 0;

	*nv = 0;
	while (i < n) {
		struct pc c = {.kind = P_OTHER, .at = i};
		if (*nv == max)
			return -1;
		if (p[i] == '\\') {
			if (i + 1 >= n)
				return -1;
			c.kind = lit_escape(p[i + 1])		      ? P_LIT :
				 (p[i + 1] == 'b' || p[i + 1] == 'B') ? P_ZERO :
									P_OTHER;
			if (pm_in_isdigit(p[i + 1]) || strchr("xocpPNQEgkKGAzZ", p[i + 1]))
				return -1; /* numbered, long or quoting escapes: left whole */
			c.end = i + 2;
		} else if (p[i] == '[') {
			if (!(c.end = class_end(p, n, i)))
				return -1;
		} else if (p[i] == '(') {
			if (!(c.end = group_end(p, n, i)))
				return -1;
			if (p[i + 1] != '?')
				c.kind = P_GROUP;
			else if (p[i + 2] == ':')
				c.kind = P_GROUP;
			else if (p[i + 2] == '=' || p[i + 2] == '!' ||
				 (p[i + 2] == '<' && (p[i + 3] == '=' || p[i + 3] == '!')))
				c.kind = P_ZERO;
			else if ((p[i + 2] == '<' &&
				  (pm_in_isalpha(p[i + 3]) || p[i + 3] == '_')) ||
				 (p[i + 2] == 'P' && p[i + 3] == '<' &&
				  (pm_in_isalpha(p[i + 4]) || p[i + 4] == '_')))
				c.kind = P_GROUP; /* named */
			else if (p[i + 2] == '<' || p[i + 2] == 'P')
				return -1; /* "(?<*", a non-atomic lookbehind, and the like: whole */
			else if (p[i + 2] == '>')
				c.kind = P_OTHER; /* atomic: dropped, never opened */
			else if (pm_in_isalpha(p[i + 2]) || p[i + 2] == '^' || p[i + 2] == '-')
				c.kind = P_OPTION;
			else
				return -1; /* "(?(", "(?|", "(?R", "(?&", "(?#"...: left whole */
		} else if (p[i] == ')' || p[i] == '|' || p[i] == '*' || p[i] == '+' ||
			   p[i] == '?' || p[i] == '{') {
			return -1;
		} else {
			c.kind = p[i] == '.' || p[i] == '^' || p[i] == '$' ? P_OTHER : P_LIT;
			c.end = i + 1;
		}
		i = quant_end(p, n, c.end);
		c.quant = i > c.end;
		v[(*nv)++] = c;
	}
	return 0;
}

/* The top-level alternatives of P (N bytes): their starts and ends in AT, at most MAX;
 * -1 when P does not parse. */
static int alternatives(const char *p, size_t n, size_t (*at)[2], size_t max, size_t *na)
{
	size_t i = 0, s = 0;

	*na = 0;
	while (i <= n) {
		if (i == n || p[i] == '|') {
			if (*na == max)
				return -1;
			at[*na][0] = s;
			at[(*na)++][1] = i;
			s = ++i;
			continue;
		}
		if (p[i] == '\\')
			i += 2;
		else if (p[i] == '[') {
			if (!(i = class_end(p, n, i)))
				return -1;
		} else if (p[i] == '(') {
			if (!(i = group_end(p, n, i)))
				return -1;
		} else
			i++;
	}
	return i == n + 1 ? 0 : -1;
}

/* Literal characters from piece K on, before anything else. */
static size_t lit_run(const struct pc *v, size_t nv, size_t k)
{
	size_t l = 0;

	for (; k < nv && v[k].kind == P_LIT; k++) {
		if (v[k].quant) /* "x+" is one "x" at least, "x?" none */
			return l;
		l++;
	}
	return l;
}

struct out {
	char **e;
	size_t n, cuts; /* expressions; of them, cut short */
	bool fail;
};

static void emit(struct out *o, const char *p, size_t n)
{
	char *c;

	if (o->fail)
		return;
	if (o->n == MAX_EXPRS || !(c = strndup(p, n))) {
		o->fail = true;
		return;
	}
	o->e[o->n++] = c;
}

/* The expressions of one alternative P (N bytes), into O: true when each begins with a
 * literal of MIN_LIT characters, which Vectorscan finds fast and seldom. */
static bool cut(const char *p, size_t n, struct out *o, int depth)
{
	struct pc v[256];
	size_t nv, k;

	if (depth > 8 || pieces(p, n, v, sizeof(v) / sizeof(v[0]), &nv) < 0 || !nv) {
		emit(o, p, n);
		return false;
	}
	if (lit_run(v, nv, 0) >= MIN_LIT) {
		emit(o, p, n);
		return true;
	}
	for (k = 0; k < nv; k++) {
		if (v[k].kind == P_OPTION)
			break;
		if (lit_run(v, nv, k) >= MIN_LIT) {
			emit(o, p + v[k].at, n - v[k].at);
			o->cuts++;
			return true;
		}
		if (k == nv - 1 && v[k].kind == P_GROUP && !v[k].quant) {
			/* all that is left: open it, each of its alternatives cut in turn; with
			 * pieces dropped before it, only when each then begins with a literal (a
			 * short alternative alone, ": ", would be found everywhere) */
			size_t b = v[k].at + 1, e = v[k].end - 1, at[MAX_EXPRS][2], na;
			size_t mark = o->n, mcuts = o->cuts;
			bool good = true;
			const char *gt;
			if (p[b] == '?' && p[b + 1] == ':')
				b += 2;
			else if (p[b] == '?' && (gt = memchr(p + b, '>', e - b)))
				b = (size_t)(gt - p) + 1; /* after a name's '>' */
			else if (p[b] == '?')
				break;
			if (alternatives(p + b, e - b, at, MAX_EXPRS, &na) < 0)
				break;
			for (size_t a = 0; a < na; a++)
				if (at[a][1] == at[a][0])
					goto whole; /* an empty alternative: everywhere, as it was */
			for (size_t a = 0; a < na; a++)
				good = cut(p + b + at[a][0], at[a][1] - at[a][0], o, depth + 1) &&
				       good;
			if (good || k == 0) {
				o->cuts += k > 0;
				return good;
			}
			while (o->n > mark)
				free(o->e[--o->n]);
			o->cuts = mcuts;
			break;
		}
	}
whole:
	emit(o, p, n);
	return false;
}

/* Whether P uses what a cut could change the meaning of. */
static bool uncuttable(const char *p)
{
	static const char *const bad[] = {"\\Q",  "\\k", "\\g", "(?(", "(?|", "(?P=",
					  "(?P>", "(?&", "(?R", "(?x", "(?#", "(*"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(p, bad[i]))
			return true;
	for (const char *q = p; (q = strchr(q, '\\')); q += 2)
		if (!q[1] || pm_in_isdigit(q[1]))
			return true;
	/* an inline option, "(?i)", reaches every alternative after it */
	for (const char *q = p; (q = strstr(q, "(?")); q++) {
		size_t k = 2;
		while (pm_in_isalpha(q[k]) || q[k] == '^' || q[k] == '-')
			k++;
		if (k > 2 && q[k] == ')')
			return true;
	}
	return false;
}

char **pm_prefilter_exprs(const char *pattern, size_t *n)
{
	char *form = pm_prefilter_form(pattern);
	size_t at[MAX_EXPRS][2], na;
	struct out o = {0};
	bool whole;

	*n = 0;
	if (!form || !(o.e = calloc(MAX_EXPRS, sizeof(*o.e)))) {
		free(form);
		return NULL;
	}
	whole = uncuttable(form) || alternatives(form, strlen(form), at, MAX_EXPRS, &na) < 0;
	for (size_t a = 0; !whole && a < na; a++)
		whole = at[a][1] == at[a][0];
	for (size_t a = 0; !whole && a < na; a++)
		cut(form + at[a][0], at[a][1] - at[a][0], &o, 0);
	if (o.fail || !o.cuts) { /* nothing cut, or too much: the form whole */
		for (size_t i = 0; i < o.n; i++)
			free(o.e[i]);
		o.n = 0;
		o.fail = false;
		emit(&o, form, strlen(form));
	}
	free(form);
	if (o.fail) {
		free(o.e);
		return NULL;
	}
	*n = o.n;
	return o.e;
}
