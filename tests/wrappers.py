#!/usr/bin/env python3
"""Wrapper styles for the invariance test (tests/wrappers.sh; engine/READING.md).

  tests/wrappers.py check BUILDDIR SRCDIR [STYLE...]   re-diagnose every fixture per style
  tests/wrappers.py list                               the styles
  tests/wrappers.py wrap STYLE FILE NODES_JSON NODE    one job-output file, wrapped

Real job output reaches the engine inside wrappers: logging frameworks' prefixes, the
per-host prefixes of parallel shells and launchers, container prefixes, structured records
(logfmt, JSON lines, Docker's json-file) with the line as a quoted value, colour codes,
progress bars redrawn with carriage returns, box frames, CRLF, pastes that lost their line
breaks, and copies out of a terminal that broke the longer lines at its width.  Each style
below rewrites a log the way one of them would; a style is one entry of STYLES, built from
small prefix generators, so a new style costs one line.

What a wrapper says must agree with what the fixture means, so that the verdict must not
change: a host prefix names the node the line came from (the file's node, or the node
NCCL's prefix names for the line's rank; a line whose node cannot be told gets none), a
rank tag the rank the line already carries (a line without one gets none), and a stamp the
line's own time (a line the engine cannot date gets a time of day, which carries no date).
"""
import calendar
import concurrent.futures
import errno
import gzip
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

QUOTE = re.compile(r'^((?:> ?)*> )')  # a person's quote: outside every wrapper
# srun's label; not the number NVHPC's runtime prints before its own ALLOCATE report (prefix.c,
# pm_prefix_runtime_id): that is the program's text, wrapped as its words are
LABEL = re.compile(r'^( *\d{1,7}: )(?!ALLOCATE: \d+ bytes requested;)')
RANKTAG = re.compile(r'^(\[rank(\d{1,7})\]: ?)')
DEFAULT = re.compile(r'^(\[default(\d{1,7})\]: ?)')
NCCL = re.compile(r'^([A-Za-z][\w.-]*):(\d+):\d+ \[\d+\] ')
OWNSTAMP = re.compile(r'^\s*\[?(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?)')
HOLE = re.compile('\0{16,}')  # NULs in a row: a hole in the file, not text (engine/scan.c)
KSTAMP = re.compile(r'^(\[ *\d+\.\d{6}\] |\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] )')


class Line:
    """One line of job output: its launcher prefixes (lead), what they say, and the rest."""

    def __init__(self, text):
        self.text = text
        self.lead = ''
        self.label = None
        self.rank = None
        self.default = None
        rest = text
        m = QUOTE.match(rest)
        if m:
            self.lead += m.group(1)
            rest = rest[len(m.group(1)):]
        m = LABEL.match(rest)
        if m:
            self.label = int(m.group(1).strip()[:-1])
            self.lead += m.group(1)
            rest = rest[len(m.group(1)):]
        for _ in range(2):
            m = RANKTAG.match(rest)
            if m:
                self.rank = int(m.group(2))
                self.lead += m.group(1)
                rest = rest[len(m.group(1)):]
            m = DEFAULT.match(rest)
            if m:
                self.default = int(m.group(2))
                self.lead += m.group(1)
                rest = rest[len(m.group(1)):]
        self.body = rest
        m = NCCL.match(rest)
        self.nccl_host = m.group(1) if m else None
        self.pid = int(m.group(2)) if m else None

    def global_rank(self, one_node):
        if self.rank is not None:
            return self.rank
        if self.default is not None and self.label is None and one_node:
            return self.default
        if self.default is None and self.label is not None:
            return self.label
        return None


class Ctx:
    """What the whole file and the job say: nodes, ranks' nodes, stamps."""

    def __init__(self, lines, nodes, file_node):
        self.nodes = nodes
        self.one_node = len(nodes) == 1
        self.file_node = file_node
        self.rank_node = {}
        for ln in lines:
            r = ln.global_rank(self.one_node)
            if ln.nccl_host and r is not None:
                self.rank_node.setdefault(r, ln.nccl_host)
        # a wrapper's stamp is the line's own: a line the engine cannot date gets a time of
        # day without a date, so that no wrapper tells the engine more than the line did
        self.times = []
        for ln in lines:
            m = OWNSTAMP.match(ln.body)
            self.times.append(parse_iso(m.group(1)) if m else None)

    def host(self, ln):
        if self.file_node:
            return self.file_node
        if ln.nccl_host:
            return ln.nccl_host
        r = ln.global_rank(self.one_node)
        return self.rank_node.get(r) if r is not None else None


def parse_iso(s):
    """Epoch seconds (UTC) of "2026-11-30 03:11:58[.123]", fraction kept."""
    frac = 0.0
    m = re.match(r'(.{19})[.,](\d+)$', s)
    if m:
        s, frac = m.group(1), float('0.' + m.group(2))
    try:
        return calendar.timegm(time.strptime(s[:19].replace('T', ' '), '%Y-%m-%d %H:%M:%S')) + frac
    except ValueError:
        return None


def fmt(t, pattern, frac=3):
    """T in PATTERN (strftime, UTC); {f} is its fraction in FRAC digits."""
    if t is None:
        return None
    whole = int(t)
    digits = '%0*d' % (frac, min(10 ** frac - 1, round((t - whole) * 10 ** frac)))
    return time.strftime(pattern, time.gmtime(whole)).replace('{f}', digits)


# ---- prefix generators: (line, ctx, t) -> text, or None when this line cannot have one ----

def iso(sep=' ', frac=',{f}', zone=''):
    return lambda ln, c, t: (fmt(t, '%Y-%m-%d' + sep + '%H:%M:%S' + frac + zone)
                             if t is not None else fmt(0, '%H:%M:%S' + frac))


def pylog(ln, c, t):
    return iso()(ln, c, t) + ' - ERROR - '


def pylog_named(ln, c, t):
    return '[' + iso(frac='')(ln, c, t) + '] [ERROR] [trainer] '


def glog(ln, c, t):
    d = fmt(t, 'E%m%d %H:%M:%S.{f}', 6) if t is not None else None
    return (d or 'E0000 00:00:00.000000') + ' 40074 train.cc:212] '


def absl(ln, c, t):
    """absl before its clock is set: the epoch seconds after "0000 00:00:"."""
    if t is None:
        return 'E0000 00:00:00.000000 40074 train.cc:212] '
    return 'E0000 00:00:%s 40074 train.cc:212] ' % ('%.6f' % t)


def pylog_colon(ln, c, t):
    """Python's "%(asctime)s %(levelname)s %(name)s: %(message)s", a dotted logger name: a
    program's own (torchrun's agent logs as torch.distributed.elastic, which the engine reads
    as torchrun's numbering of the ranks, att_ranks.c launcher_ranks: no neutral wrapper)."""
    return iso()(ln, c, t) + ' ERROR megatron.training.dist: '


def pylog_bracket(ln, c, t):
    """"%(asctime)s [%(levelname)s] %(name)s: %(message)s"."""
    return iso(frac='')(ln, c, t) + ' [ERROR] finetune.loop: '


def pybasic(ln, c, t):
    return 'ERROR:root:'


def loguru(ln, c, t):
    return iso(frac='.{f}')(ln, c, t) + ' | ERROR    | train:main:42 - '


def zap(ln, c, t):
    return iso('T', '.{f}', 'Z')(ln, c, t) + '\tERROR\ttrain/loop.py:88\t'


def accel(ln, c, t):
    d = fmt(t, '%m/%d/%Y %H:%M:%S') if t is not None else '00:00:00'
    return d + ' - ERROR - __main__ - '


def vllm(ln, c, t):
    d = fmt(t, '%m-%d %H:%M:%S') if t is not None else '00:00:00'
    return '(APIServer pid=1) ERROR ' + d + ' [train.py:88] '


def level_first(ln, c, t):
    """The level before the stamp: "%(levelname)s %(asctime)s %(name)s: %(message)s"."""
    return 'ERROR ' + iso()(ln, c, t) + ' trainer: '


def hydra(ln, c, t):
    """hydra's job logging: "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"."""
    return '[' + iso()(ln, c, t) + '][trainer.loop][ERROR] - '


def structlog(ln, c, t):
    """structlog's console renderer: the level padded in brackets."""
    return iso('T', '.{f}', 'Z')(ln, c, t) + ' [error    ] '


def env_logger(ln, c, t):
    """Rust's env_logger: "[stamp LEVEL target] "; a line without a date gets the form with
    its stamp turned off, "[LEVEL target] "."""
    return ('[' + iso('T', '', 'Z')(ln, c, t) + ' ERROR trainer::loop] ' if t is not None
            else '[ERROR trainer::loop] ')


def tracing(ln, c, t):
    """Rust's tracing_subscriber::fmt: the stamp, the level, the target with its "::"."""
    return iso('T', '.{f}', 'Z')(ln, c, t) + ' ERROR trainer::loop: '


def logrus(ln, c, t):
    """Go's logrus on a terminal: "ERRO[0042] ", seconds since start, no stamp: a stamp
    outside it keeps the line's time."""
    return iso()(ln, c, t) + ' ERRO[0042] '


def logfmt_quote(text):
    """A logfmt value as Go's logfmt encoders quote it: backslashes, quotes and control
    bytes escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '\t':
            out.append('\\t')
        elif ord(ch) < 0x20:
            out.append('\\u%04x' % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def record_fields(ln, c, t):
    """What a structured record says beside its message: its time (a line the engine cannot
    date gets none), the rank the line carries, the node it came from."""
    r, h = ln.global_rank(c.one_node), c.host(ln)
    return (fmt(t, '%Y-%m-%dT%H:%M:%S.{f}Z') if t is not None else None, r, h)


def logfmt(ln, c, t):
    """Go's logfmt (logrus, go-kit, slog), inside the launcher's prefixes (srun's label names
    the task that wrote the line); the rank and the host are fields of the record too."""
    when, r, h = record_fields(ln, c, t)
    pairs = (['time=' + when] if when else []) + ['level=error', 'msg=' + logfmt_quote(ln.body)]
    pairs += (['rank=%d' % r] if r is not None else []) + (['host=' + h] if h else [])
    return ln.lead + ' '.join(pairs)


def jsonl(ln, c, t):
    """One JSON object a line (python-json-logger, structlog), inside the launcher's prefixes
    as logfmt's: non-ASCII as \\u escapes."""
    when, r, h = record_fields(ln, c, t)
    rec = {'time': when} if when else {}
    rec.update(level='ERROR', logger='trainer', message=ln.body)
    if r is not None:
        rec['rank'] = r
    if h:
        rec['host'] = h
    return ln.lead + json.dumps(rec)


def docker_json(ln, c, t):
    """Docker's json-file driver: the whole line, its line break kept, and the stream."""
    when, _, _ = record_fields(ln, c, t)
    rec = {'log': ln.text + '\n', 'stream': 'stderr'}
    if when:
        rec['time'] = when
    return json.dumps(rec, separators=(',', ':'))


def host_colon(ln, c, t):
    h = c.host(ln)
    return h + ': ' if h else None


def host_bracket(ln, c, t):
    h = c.host(ln)
    return '[' + h + '] ' if h else None


def host_pipe(ln, c, t):
    h = c.host(ln)
    return h + ' | ' if h else None


def host_pid(ln, c, t):
    h = c.host(ln)
    return '[%s:%05d] ' % (h, ln.pid or 4242) if h else None


def compose(ln, c, t):
    return 'trainer-1  | '


def kubectl(ln, c, t):
    return '[pod/trainer-0/main] '


def stamp_outer(ln, c, t):
    return iso('T', '.{f}', 'Z')(ln, c, t) + ' '


def shipper(ln, c, t):
    # a log shipper's or kubectl's stamp: when it kept the line, not when the line says
    return '2026-12-01T06:00:%02d.%09dZ ' % (len(ln.text) % 60, 104417000 + len(ln.text))


def syslog_date(ln, c, t):
    return fmt(t, '%b %d %H:%M:%S ') if t is not None else None


# rank-carrying generators replace the launcher's own label (they number the same ranks)
def mpirun(ln, c, t):
    r = ln.global_rank(c.one_node)
    return '[1,%d]<stderr>:' % r if r is not None else None


def ray(ln, c, t):
    """Ray's worker prefix; the rank the launcher's label gave, as Ray Train's own tag."""
    r = ln.global_rank(c.one_node)
    tag = '[rank%d]: ' % r if r is not None else ''
    return '(RayTrainWorker pid=%d, ip=10.1.0.11) ' % (ln.pid or 4242) + tag


def deepspeed(ln, c, t):
    h, r = c.host(ln), ln.global_rank(c.one_node)
    if h is None or r is None or ln.rank is not None:
        return None
    return '%s: [rank%d]:' % (h, r)


def rank_tag(ln, c, t):
    r = ln.global_rank(c.one_node)
    return '[rank%d]: ' % r if r is not None and ln.rank is None else None


# ---- styles ----

def outer(*gens):
    """Prefixes before the whole line, outermost first."""
    def f(ln, c, t):
        pre = [g(ln, c, t) for g in gens]
        return ln.text if None in pre else ''.join(pre) + ln.text
    return f


def replace_label(gen):
    """A launcher prefix that takes the place of srun's label and rank tags."""
    def f(ln, c, t):
        p = gen(ln, c, t)
        return ln.text if p is None else p + ln.body
    return f


def inner(*gens, outside=()):
    """Logging-framework prefixes between the launcher's prefixes and the text."""
    def f(ln, c, t):
        pre = [g(ln, c, t) for g in gens]
        out = [g(ln, c, t) for g in outside]
        if None in pre:
            return ln.text
        line = ln.lead + ''.join(pre) + ln.body
        return line if None in out else ''.join(out) + line
    return f


def ansi(ln, c, t):
    body = re.sub(r'^(\s*)(\S+)', '\\1\x1b[1;31m\\2\x1b[0m', ln.body)
    lead = '\x1b[32m' + ln.lead + '\x1b[0m' if ln.lead else ''
    return lead + body + '\x1b[K'


def progress(ln, c, t):
    # a download's bar: a bare bar that advanced is a training loop's progress
    # (progress-tqdm-bar), which a wrapper must not add
    bar = 'Downloading: 40%|####      | 4/10 [00:04<00:06,  1.01it/s]'
    return ln.lead + bar + '\r' + bar.replace('40%', '50%') + '\r' + ln.body


def rich(ln, c, t):
    return ln.lead + '\u2502 ' + ln.body.ljust(100) + ' \u2502'


def crlf(ln, c, t):
    return ln.text + '\r'


NBSP_RUN = re.compile(r'^ +| {2,}')


def nbsp(ln, c, t):
    """A copy out of a web page that showed the log as HTML: a line's indentation and every
    run of two or more blanks written as &nbsp;, which the copy keeps as U+00A0 (the job's
    output and the kernel log alike)."""
    return NBSP_RUN.sub(lambda m: '\u00a0' * len(m.group(0)), ln.text)


def kernel_ansi(ln, c, t):
    m = KSTAMP.match(ln.text)
    if not m:
        return ln.text
    return '\x1b[32m' + m.group(1) + '\x1b[0m' + ln.text[len(m.group(1)):]


SYSLOG_ISO = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) '
                        r'([A-Za-z][\w.-]*) ([\w./@-]+)(?:\[(\d+)\])?: (.*)$')


def rfc5424(ln, c, t):
    """A forwarder's RFC 5424 line for a syslog line with a full stamp: the priority and
    version, the stamp and host as they were, the tag as APP-NAME (its pid as PROCID), no
    MSGID and no structured data."""
    m = SYSLOG_ISO.match(ln.text)
    if not m:
        return ln.text
    pri = '<4>' if m.group(3) == 'kernel' else '<30>'
    return '%s1 %s %s %s %s - - %s' % (pri, m.group(1), m.group(2), m.group(3),
                                       m.group(4) or '-', m.group(5))


def gha_stamp(ln, c, t):
    return (fmt(t, '%Y-%m-%dT%H:%M:%S.{f}Z', 7) if t is not None
            else fmt(0, '%H:%M:%S.{f}', 7)) + ' '


def gha_kernel(ln, c, t):
    # a CI step's own `dmesg`: the runner's stamp is when it read the line, not the line's
    return '2026-12-01T06:00:%02d.%07dZ ' % (len(ln.text) % 60, 1044170 + len(ln.text))


def html_escape(ln, c, t):
    """A log shown in a web page or a mail archive and copied from its source: HTML's five
    characters as entities, the job's output and the kernel log alike."""
    return (ln.text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            .replace('"', '&quot;').replace("'", '&#39;'))


def md_quote(lines):
    """A reply that quotes the log: every line after `> `, a blank one a lone `>`."""
    return ['>' if not ln.text.strip() else '> ' + ln.text for ln in lines]


def gutter(lines):
    """A copy out of a file view or a pastebin with its line numbers: `  12 | text`, the
    numbers right-aligned from 1, a blank line's number and bar alone."""
    w = len(str(len(lines))) + 2
    return ['%*d |' % (w, i + 1) + (' ' + ln.text if ln.text else '')
            for i, ln in enumerate(lines)]


def gha_log(lines, c, kind):
    """A CI job's log as GitHub Actions shows it: the step's `##[group]` head and its
    `##[endgroup]`, then every line after the runner's stamp."""
    gen = gha_stamp if kind == 'app_log' else gha_kernel
    t0 = c.times[0] if c.times else None
    head = [gha_stamp(None, c, t0) + '##[group]Run srun ./train.sh',
            gha_stamp(None, c, t0) + '##[endgroup]'] if kind == 'app_log' else []
    return head + [gen(ln, c, c.times[i]) + ln.text if ln.text.strip() else ln.text
                   for i, ln in enumerate(lines)]


SQUASH = 'squashed'
EXC = 'jsonl-exc'
TERMWRAP = 'termwrap'
QUOTED = 'md-quote'
GUTTER = 'gutter'
GHA = 'gha'
TERM_WIDTH = 100

# name: (what job output gets, what a kernel log gets or None)
STYLES = {
    'pylog': (inner(pylog), None),
    'pylog-named': (inner(pylog_named), None),
    'pylog-colon': (inner(pylog_colon), None),
    'pylog-bracket': (inner(pylog_bracket), None),
    'glog': (inner(glog), None),
    'absl': (inner(absl), None),
    'pybasic': (inner(pybasic), None),
    'loguru': (inner(loguru), None),
    'zap-tabs': (inner(zap), None),
    'accelerate': (inner(accel), None),
    'vllm': (inner(vllm), None),
    'level-first': (inner(level_first), None),
    'hydra': (inner(hydra), None),
    'structlog': (inner(structlog), None),
    'env-logger': (inner(env_logger), None),
    'tracing': (inner(tracing), None),
    'logrus-tty': (inner(logrus), None),
    'logfmt': (logfmt, None),
    'jsonl': (jsonl, None),
    'docker-json': (docker_json, None),
    EXC: (None, None),
    'pdsh': (outer(host_colon), None),
    'host-bracket': (outer(host_bracket), None),
    'host-pipe': (outer(host_pipe), None),
    'ompi-hostpid': (outer(host_pid), None),
    'syslog-date': (inner(syslog_date), None),
    'compose': (outer(compose), None),
    'kubectl': (outer(kubectl), None),
    'kubectl-ts': (outer(stamp_outer), None),
    'shipper-kernel': (None, outer(shipper)),
    'rfc5424': (None, rfc5424),
    'mpirun': (replace_label(mpirun), None),
    'ray': (replace_label(ray), None),
    'deepspeed': (replace_label(deepspeed), None),
    'rank-tag': (inner(rank_tag), None),
    'ansi': (ansi, kernel_ansi),
    'progress-cr': (progress, None),
    'rich-frame': (rich, None),
    'crlf': (crlf, crlf),
    'web-nbsp': (nbsp, nbsp),
    'pdsh+pylog': (inner(rank_tag, pylog, outside=(host_colon,)), None),
    'mpirun+loguru': (lambda ln, c, t: replace_label(mpirun)(Line(inner(loguru)(ln, c, t)), c, t),
                      None),
    'compose+glog': (inner(glog, outside=(compose,)), None),
    'ray+pybasic': (lambda ln, c, t: replace_label(ray)(Line(inner(pybasic)(ln, c, t)), c, t),
                    None),
    'ansi+pdsh': (lambda ln, c, t: ansi(Line(outer(host_colon)(ln, c, t)), c, t), None),
    SQUASH: (None, None),
    TERMWRAP: (None, None),
    QUOTED: (None, None),
    GHA: (None, None),
    GUTTER: (None, None),
    'html-escape': (html_escape, html_escape),
}

# The first line of a multi-line symptom, its continuation, its last line: Python's
# traceback (through the exception line), faulthandler's dump, a C++ abort with its what()
# and frames, the launchers' framed failure summaries and Open MPI's boxed messages.
HOSTPID = r'(?:\[[\w.-]+:\d+\] )?'
BLOCK_START = re.compile(HOSTPID + r'(Traceback \(most recent call last\):|Root Cause \(first observed failure\):|Failures:|\*\*\* Process received signal \*\*\*|Fatal Python error: |terminate called after throwing)')
BLOCK_MORE = re.compile(HOSTPID + r'(\s|\[\d+\]:|={5,}|-{5,}|<NO_OTHER_FAILURES>|Root Cause|Current thread|Thread 0x|Stack \(most recent call first\)|Signal|Failing at|\*\*\* End of error|what\(\):|Exception raised from|frame #\d+:)')
BOX = re.compile(r'^-{20,}\s*$')


def block_ends(body):
    """A line that neither continues a multi-line symptom nor starts one ends it."""
    return not BLOCK_MORE.match(body) and not BLOCK_START.match(body)


def symptom(lines, i, ends):
    """The multi-line symptom starting at line I: the lines of its lead (labelled ranks
    interleave), at most 60, through the first whose body ENDS it; and the index after."""
    block, j = [lines[i]], i + 1
    while j < len(lines) and lines[j].lead == lines[i].lead and len(block) < 60:
        block.append(lines[j])
        j += 1
        if ends(lines[j - 1].body):
            break
    return block, j


def squash(lines):
    """Join each multi-line symptom (per lead: labelled ranks interleave) onto one line, as a
    paste that lost its line breaks shows it; everything else stays."""
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        box = BOX.match(ln.body)
        if not box and not BLOCK_START.match(ln.body):
            out.append(ln.text)
            i += 1
            continue
        block, j = symptom(lines, i, BOX.match if box else block_ends)
        out.append(' '.join(x.text for x in block))
        i = j
    return out


TRACEBACK = re.compile(HOSTPID + r'Traceback \(most recent call last\):')


def exc_records(lines, c):
    """python-json-logger's logger.exception(): each Python traceback (per lead) one record,
    its lines in "exc_info" (a JSON string: line breaks as \\n); every other line a record
    of its own, as jsonl writes it."""
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        if not ln.text.strip() or not TRACEBACK.match(ln.body):
            out.append(jsonl(ln, c, c.times[i]) if ln.text.strip() else ln.text)
            i += 1
            continue
        block, j = symptom(lines, i, block_ends)
        rec = json.loads(jsonl(ln, c, c.times[i])[len(ln.lead):])
        rec['message'] = 'unhandled exception'
        rec['exc_info'] = '\n'.join(x.body for x in block)
        out.append(ln.lead + json.dumps(rec))
        i = j
    return out


def termwrap(lines):
    """Every line longer than the terminal broken into lines of its width, as a copy out
    of a pager or a multiplexer keeps them (the job's output and the kernel log alike)."""
    out = []
    for ln in lines:
        t = ln.text
        while len(t) > TERM_WIDTH:
            out.append(t[:TERM_WIDTH])
            t = t[TERM_WIDTH:]
        out.append(t)
    return out


def wrap(style, text, nodes, file_node, kind):
    # a hole (a file emptied while its writer went on reads as NULs up to where it wrote
    # next: read-output-truncated-while-written) is the filesystem's, outside every wrapper
    hole = len(text) - len(text.lstrip('\0'))
    if hole:
        rest = text[hole:]
        return text[:hole] + wrap(style, rest, nodes, file_node, kind) if rest else text
    raw = text.split('\n')
    final = raw[-1] == ''
    if final:
        raw = raw[:-1]
    lines = [Line(x) for x in raw]
    if style == SQUASH:
        if kind != 'app_log':
            return text
        out = squash(lines)
    elif style == TERMWRAP:
        out = termwrap(lines)
    elif style == QUOTED:
        out = md_quote(lines)
    elif style == GUTTER:
        out = gutter(lines)
    elif style == GHA:
        out = gha_log(lines, Ctx(lines, nodes, file_node), kind)
    elif style == EXC:
        if kind != 'app_log':
            return text
        out = exc_records(lines, Ctx(lines, nodes, file_node))
    else:
        app, kern = STYLES[style]
        gen = app if kind == 'app_log' else kern
        if gen is None:
            return text
        # a hole inside a line (pages lost, then the next write: read-output-hole-inside-line)
        # is the filesystem's too: the text on each side is a line of its own to a wrapper,
        # the NULs between them stay as they are
        seps = []
        if any(HOLE.search(x) for x in raw):
            pieces = []
            for x in raw:
                pieces += HOLE.split(x)
                seps += HOLE.findall(x) + ['\n']
            lines = [Line(x) for x in pieces]
        c = Ctx(lines, nodes, file_node)
        out = [gen(ln, c, c.times[i]) if ln.text.strip() else ln.text
               for i, ln in enumerate(lines)]
        if seps:
            joined = ''.join(o + sep for o, sep in zip(out, seps))
            return joined if final else joined[:-1]
    return '\n'.join(out) + ('\n' if final else '')


def verdict_key(v):
    """What must not change under a wrapper."""
    c = v.get('cause')
    o = v.get('origin') or {}
    return {'outcome': v.get('outcome'), 'status': v.get('status'),
            'cause': {'class': c['class'], 'subclass': c['subclass']} if c else None,
            'origin': {'nodes': o.get('nodes', []), 'ranks': o.get('ranks', [])}}


def read(path):
    """The text of PATH and whether it was gzip'd (told by its first bytes, as the engine
    does); None for a zstd file, which this test leaves alone."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] == b'\x28\xb5\x2f\xfd':
        return None, False
    gz = data[:2] == b'\x1f\x8b'
    if gz:
        data = gzip.decompress(data)
    return data.decode('utf-8', errors='surrogateescape'), gz


def write(path, text, gz):
    data = text.encode('utf-8', errors='surrogateescape')
    with open(path, 'wb') as f:
        f.write(gzip.compress(data, mtime=0) if gz else data)


def hosts(v):
    """A verdict's host list ("gpu[0001-0002,0007],login1") as its names, sorted."""
    if isinstance(v, list):
        return v
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', v or ''):
        m = re.match(r'^([^\[]*)\[([^\]]*)\]$', part)
        if not m:
            out.append(part)
            continue
        for r in m.group(2).split(','):
            a, _, b = r.partition('-')
            out += ['%s%0*d' % (m.group(1), len(a), i) for i in range(int(a), int(b or a) + 1)]
    return sorted(set(out))


def baseline(cli, rules, fixdir):
    """Each fixture's verdict key, files and nodes, unwrapped: from one `rules check
    --verdicts` (each case's `diagnose --json` and `diagnose --inputs` bytes), not two
    processes a fixture (their rule set loads were most of this test's time under ASan)."""
    names = [n for n in sorted(os.listdir(fixdir))
             if os.path.isdir(os.path.join(fixdir, n, 'evidence'))]
    tmp = tempfile.mkdtemp(prefix='pm-wrappers-base.')
    try:
        # a failing case still has its verdict written; the run's own verdict on the cases
        # is tests/fixtures.sh's, and the second run with threads is skipped here
        r = subprocess.run([cli, 'rules', 'check', '--verdicts', tmp, rules],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, LC_ALL='C', POSTMORTEM_CHECK_THREADS='1'))
        out = {}
        for name in names:
            try:
                with open(os.path.join(tmp, name + '.json')) as f:
                    v = json.load(f)
                # each input's kind and node: --inputs (a verdict's coverage is grouped)
                with open(os.path.join(tmp, name + '.inputs.json')) as f:
                    ins = json.load(f)
            except (OSError, ValueError) as e:
                sys.exit('%s: no verdict from rules check (%s):\n%s' % (
                    name, e, r.stdout.decode('utf-8', 'replace')[-2000:]))
            files = {c['file']: (c.get('source'), c.get('node')) for c in ins if c.get('file')}
            out[name] = (verdict_key(v), files, hosts(v['job'].get('nodes')))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Whether hard links from the fixtures to the trees fail (the trees on another filesystem):
# then every file is copied, without trying a link first
_COPY = []


def link_tree(src, dst):
    """DST: SRC's folders, its files hard links (the engine skips symbolic ones), or copies
    where the tree is on another filesystem."""
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            a, b = os.path.join(root, f), os.path.join(dst, rel, f)
            if not _COPY:
                try:
                    os.link(a, b)
                    continue
                except OSError as e:
                    if e.errno == errno.EXDEV:
                        _COPY.append(True)
            shutil.copy2(a, b)


def tree_dir(jobs, need):
    """Where the styles' trees go: PM_WRAPPER_TMPDIR, else /dev/shm where it is a memory
    filesystem with room for JOBS trees of NEED bytes each, else the usual temporary folder.
    A tree is some 13,000 entries made and removed each style: on a disk the removals alone
    waited 15-18 s a style for the journal (0.7 s of CPU), 0.9 s in memory."""
    d = os.environ.get('PM_WRAPPER_TMPDIR')
    if d:
        return d
    try:
        st = os.statvfs('/dev/shm')
        if (os.access('/dev/shm', os.W_OK | os.X_OK) and
                st.f_bavail * st.f_frsize >= 4 * jobs * need):
            return '/dev/shm'
    except OSError:
        pass
    return None


def tree_size(path):
    """The bytes of the files under PATH."""
    n = 0
    for root, dirs, files in os.walk(path):
        for f in files:
            try:
                n += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return n


# Pastes a terminal's width broke already: a wrapper goes on each line a program wrote, before
# the terminal broke it, and a style that puts one on each broken piece makes records of the
# pieces.  Their files are left as they are (their verdict must still hold).
AS_COPIED = {'read-paste-terminal-wrapped-job-output', 'read-paste-terminal-wrapped-kernel-log',
             'place-abort-report-terminal-wrapped', 'read-paste-same-template-wrapped-lost-gpus',
             'read-paste-short-wrapped-line-in-word-near-miss',
             'read-paste-short-wrapped-after-number-near-miss'}
# Files a log collector wrapped already, its stamp and fields outermost (a container
# runtime's CRI "stderr F ", fluentd's "stamp\ttag\t{record}"): a style's wrappers would go
# inside the collector's, after srun's label the style cannot see there, and put a
# program's prefix before the runtime's.  Left as they are, as AS_COPIED.
COLLECTED = {'read-cri-runtime-four-layers', 'read-fluentd-file-output-records'}
# Fixtures whose files a person pasted already (a gutter, a reply's quote, a page's HTML
# escapes): a style's layer would go outside the paste's (a shipper's stamp before a
# gutter, a logger's between an editor's `41: ` and srun's label), which no writer puts there
# and no reader takes apart.  Left as they are, as AS_COPIED.  (A CI runner's stamp before a
# reply's `> ` is read: such quotes are PASTED_ONLY, below.)
PASTED = {'read-paste-gutter-kernel-log', 'read-paste-gutter-colon-srun-labels',
          'read-paste-html-escaped-rust-panic'}
# ... and, under the styles that are a paste themselves, a quoted folder (the other styles'
# layers go inside its quote and are read there)
PASTE_STYLES = {'md-quote', 'gha', 'gutter', 'html-escape'}
PASTED_AGAIN = {'read-paste-quoted-folder-one-host'}
# Quotes, some behind a CI runner's stamps, whose files only a paste's layer may wrap: a
# reply's `> ` or a gutter around the runner's stamp, a runner's stamp around a reply's quote,
# HTML's escapes of it all are read as the paste's shape (engine/READING.md, "Pastes"); a
# program's wrapper would go outside the paste, as for PASTED.
PASTED_ONLY = {'read-paste-quoted-tail-headers-other-host-near-miss',
               'trust-ci-stamped-quote-tail-neighbour-xid',
               'trust-ci-stamped-quote-tail-own-node-xid-near-miss',
               'trust-quoted-tail-headers-below-note-neighbour-xid'}


def build(style, rules, fixdir, base, out):
    """OUT/rules: the rule set, each fixture's evidence wrapped in STYLE, and the unwrapped
    verdict as what to expect.  The number of files that changed."""
    changed = 0
    shutil.copytree(rules, out, ignore=shutil.ignore_patterns('fixtures'))
    for name, (key, files, nodes) in base.items():
        src = os.path.join(fixdir, name, 'evidence')
        dst = os.path.join(out, 'fixtures', name, 'evidence')
        link_tree(src, dst)
        with open(os.path.join(out, 'fixtures', name, 'expected.json'), 'w') as f:
            json.dump(key, f)
        for rel, (kind, node) in files.items():
            path = os.path.join(dst, rel)
            if name in AS_COPIED or name in COLLECTED:
                continue
            if name in PASTED or (style in PASTE_STYLES and name in PASTED_AGAIN):
                continue
            if name in PASTED_ONLY and style not in PASTE_STYLES:
                continue
            if kind not in ('app_log', 'kernel_log') or not os.path.isfile(path):
                continue
            text, gz = read(path)
            if text is None:
                continue
            new = wrap(style, text, nodes, node, kind)
            if new != text:
                os.unlink(path)  # a link: the fixture itself stays as it is
                write(path, new, gz)
                changed += 1
    return changed


# A harness that places by NCCL's prefix, step-blind (trust-two-steps-nccl-prefix-later-step).
STEP_BLIND = (
    'the harness gives a line without a host the host NCCL\'s prefix gives its rank '
    '(Ctx.rank_node), blind to steps as the engine no longer is: step 1\'s NCCL line puts '
    'rank 1 on gn051, so the wrapped output writes gn051 on step 0\'s failing line itself, '
    'and that host places it (steps_may_split refuses only the inference from NCCL\'s '
    'line)')

# A job-printed host prefix folded into a record (trust76's, trust79's and trust80's fixtures).
PREFIX_IN_RECORD = (
    'the Open MPI `[host:pid]` prefix the job printed is inside the record this style '
    'writes (a JSON exc_info string, or one squashed line), where no line prefix is read: '
    'no origin node, containment retry (the safe side of what the fixture tests, an '
    'exclusion only offered)')

# Known gaps, each with its reason: listed as "known" and not counted; one that passes again
# is reported so that its entry can go.
KNOWN = {
    ('jsonl-exc', 'trust-ompi-prefix-host-names-no-own-node'):
        PREFIX_IN_RECORD,
    ('jsonl-exc', 'trust-records-ompi-prefix-node-failed-near-miss'):
        PREFIX_IN_RECORD,
    ('squashed', 'trust-ompi-prefix-host-names-no-own-node'):
        PREFIX_IN_RECORD,
    ('squashed', 'trust-records-ompi-prefix-node-failed-near-miss'):
        PREFIX_IN_RECORD,
    ('jsonl-exc', 'trust-records-own-abort-keeps-prefix-node'):
        PREFIX_IN_RECORD,
    ('squashed', 'trust-records-own-abort-keeps-prefix-node'):
        PREFIX_IN_RECORD,
    ('jsonl-exc', 'trust-records-kill-before-other-failure-keeps-prefix-node'):
        PREFIX_IN_RECORD,
    ('squashed', 'trust-records-kill-before-other-failure-keeps-prefix-node'):
        PREFIX_IN_RECORD,
    ('ansi+pdsh', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('host-bracket', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('host-pipe', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('jsonl', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('jsonl-exc', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('logfmt', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('ompi-hostpid', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('pdsh', 'trust-two-steps-nccl-prefix-later-step'): STEP_BLIND,
    ('jsonl-exc', 'res-gpu-held-oom-stopped-process'):
        'the held GPU is tied to the failing rank\'s by PyTorch\'s "Process N has ... memory in '
        'use" on the origin\'s line (att_cands.c, failing_gpu); under this style the kept line '
        'is the record, whose first 512 bytes do not reach those words: no tie, gpu_oom and '
        'fix-job stand (the safe side: no node excluded)',
    ('jsonl-exc', 'res-gpu-held-oom-snapshot-within-epilog'):
        'as for res-gpu-held-oom-stopped-process: the kept record\'s first 512 bytes do not '
        'reach PyTorch\'s "Process N has" words that tie the held GPU to the failing rank\'s: '
        'gpu_oom and fix-job stand (no node excluded)',
    ('squashed', 'res-gpu-held-oom-stopped-process'):
        'as for jsonl-exc: the traceback squashed onto one line is kept to its first 512 '
        'bytes, before the "Process N has" words that tie the held GPU: gpu_oom stands',
    ('compose', 'trust-records-shell-prefix-host-names-no-own-node'):
        'a `host: ` prefix inside compose\'s `trainer-1  | ` is not read as the line\'s node, '
        'and with the plugin\'s records nothing else places the line: no origin node, '
        'containment retry (the safe side of what this fixture tests, an exclusion only '
        'offered)',
    ('compose+glog', 'trust-records-shell-prefix-host-names-no-own-node'):
        'as for compose: the `host: ` prefix inside the service prefix is not read',
    ('compose', 'launch-world-size-mismatch-word'):
        'as for trust-records-shell-prefix-host-names-no-own-node: pdsh\'s `gpu-k21: ` inside '
        'compose\'s service prefix is not read as the line\'s node, so the same '
        'launch_config/rendezvous stands on no node, fix-job (no node blamed)',
    ('compose+glog', 'launch-world-size-mismatch-word'):
        'as for compose: the `host: ` prefix inside the service prefix is not read; the same '
        'cause on no node, fix-job',
    ('squashed', 'launch-driver-words-logged-warning-near-miss'):
        'as launch-cuda-init-warning-words-near-miss: the traceback squashed onto one line and '
        'ending on "FileNotFoundError: [Errno 2] ..." is read by no rule; the warnings this '
        'fixture is about are refused alike',
    ('squashed', 'launch-cuda-init-warning-words-near-miss'):
        'a traceback squashed onto one line and ending on "FileNotFoundError: [Errno 2] ..." '
        'is read by no rule (the start\'s engine and rules, 07dfc7c, give the same unknown): '
        'a gap of the squashed reading, not of the warning rules this fixture is about',
    ('squashed', 'app-py-traceback-quoted-error-literal'):
        'a traceback whose line breaks are lost has no frame line above its source line: the '
        'quoted code is read as any text (READING.md, "Code a traceback quotes": physical '
        'lines only)',
    ('jsonl', 'app-py-traceback-quoted-error-literal'):
        'each line becomes a record whose message holds srun\'s label and the escaped '
        'frame: the frame line is found in a physical line\'s own text only, not inside a '
        'record\'s value (READING.md, "Code a traceback quotes")',
    ('logfmt', 'app-py-traceback-quoted-error-literal'):
        'as for jsonl: the frame line inside a record\'s quoted value is not looked for',
    ('docker-json', 'app-py-traceback-quoted-error-literal'):
        'as for jsonl: the frame line inside a record\'s quoted value is not looked for',
    ('jsonl-exc', 'app-py-traceback-quoted-error-literal'):
        'the traceback is one record\'s exc_info string, scanned again with its escapes '
        'undone as one value: its lines are not told apart as frames and code',
    ('mpirun', 'place-torchrun-summary-srun-label-rank'):
        "torchrun's summary rank takes the place of srun's --label rank only where the label is srun's (a task id: torchrun runs one task a node); this style puts another launcher's prefix in its place, so the line is not one srun labelled and keeps the rank it is read with (1); the node, gx02, is right either way",
    ('mpirun+loguru', 'place-torchrun-summary-srun-label-rank'):
        "torchrun's summary rank takes the place of srun's --label rank only where the label is srun's (a task id: torchrun runs one task a node); this style puts another launcher's prefix in its place, so the line is not one srun labelled and keeps the rank it is read with (1); the node, gx02, is right either way",
    ('ray', 'place-torchrun-summary-srun-label-rank'):
        "torchrun's summary rank takes the place of srun's --label rank only where the label is srun's (a task id: torchrun runs one task a node); this style puts another launcher's prefix in its place, so the line is not one srun labelled and keeps the rank it is read with (1); the node, gx02, is right either way",
    ('ray+pybasic', 'place-torchrun-summary-srun-label-rank'):
        "torchrun's summary rank takes the place of srun's --label rank only where the label is srun's (a task id: torchrun runs one task a node); this style puts another launcher's prefix in its place, so the line is not one srun labelled and keeps the rank it is read with (1); the node, gx02, is right either way",
    ('progress-cr', 'place-torchrun-summary-srun-label-rank'):
        "the bar this style redraws before each line stands between srun's label and the text, and the kept line is not read as labelled by srun alone: the summary's rank 13 does not replace the label's 1 (the node, gx02, is right either way)",
    ('jsonl-exc', 'app-generic-exceptions-two-nodes-dated-near-miss'):
        'the two exceptions are told apart only by the stamps on their last lines; the style '
        'folds each traceback, stamp and all, into one record\'s exc_info string, where no '
        'stamp is read as the line\'s time, so they tie (ambiguous, as in '
        'app-generic-exceptions-two-nodes-tie)',
    ('jsonl-exc', 'launch-launcher-env-unset-pandas-column-near-miss'):
        'launcher-env-unset\'s not_after looks back over physical lines only (READING.md), '
        'and the style folds the traceback, pandas\' frames and its "from err" with it, into '
        'one record\'s exc_info string, scanned again as one value: the column\'s KeyError '
        'reads as the launcher\'s variable, as it does in such a record from any program',
    ('squashed', 'app-generic-exceptions-two-nodes-dated-near-miss'):
        'the two exceptions are told apart only by the stamps on their last lines; a paste that '
        'lost its line breaks does not date them, so they tie (ambiguous, as in '
        'app-generic-exceptions-two-nodes-tie)',
    ('shipper-kernel', 'app-logic-error-beside-link-flap-near-miss'):
        'the shipper\'s stamp, hours after the job\'s own lines, is taken for the kernel '
        'line\'s time: the port\'s loss falls outside the job\'s window, and the job\'s own IB '
        'completion error leads at hypothesis (network_fabric/ib_link on its rank)',
    ('squashed', 'app-prterun-sigterm-near-miss'):
        'squashed, prterun\'s wrapped report is Open MPI 4\'s one-line form, a launcher\'s '
        'teardown line: an error, so the outcome is FAILED (the cause stays unknown)',
    ('ray', 'launch-driver-torchrun-agent-label'):
        'the style puts Ray\'s prefix in the place of srun\'s label, the one word that says '
        'which of Slurm\'s tasks (torchrun agents) wrote the line: PyTorch\'s rank tag alone '
        'is left, and the rank map numbers tasks',
    ('ray', 'app-torchrun-default-prefix-one-node-no-record'):
        'the style puts Ray\'s worker prefix in the place of torchrun\'s [default3]:, the '
        'only word that numbers the worker: no rank is left to read (the cause, gpu_oom, '
        'and fix-job are unchanged)',
    ('ray+pybasic', 'app-torchrun-default-prefix-one-node-no-record'):
        'as for ray: torchrun\'s [default3]:, the worker\'s number, is replaced',
    ('ray', 'launch-jit-compile-wrapper-no-node'):
        'as for app-torchrun-default-prefix-one-node-no-record: Ray\'s worker prefix takes the '
        'place of torchrun\'s [defaultN]:, the only word that numbers each worker, so no rank '
        'is left to read (launch_config/import, LAUNCH_FAILED and fix-job are unchanged; no '
        'node is named either way)',
    ('ray+pybasic', 'launch-jit-compile-wrapper-no-node'):
        'as for ray: torchrun\'s [defaultN]:, the worker\'s number, is replaced',
    ('progress-cr', 'place-labelled-srun-shaped-line-no-host'):
        "as for place-torchrun-summary-srun-label-rank: the bar this style redraws stands "
        "between srun's label and the text, and the line is not read as labelled: the task's "
        "srun-shaped line names its host as before the fix (cn217, fix-job unchanged)",
    ('ansi', 'place-labelled-srun-shaped-line-no-host'):
        "the colour codes this style puts around srun's label hide the label from the "
        "reading of the folder's hosts: the task's srun-shaped line names its host as before "
        "the fix (cn217, fix-job unchanged); a limit left for later (left91)",
    ('ansi+pdsh', 'place-labelled-srun-shaped-line-no-host'):
        'as for ansi: the coloured label is not read',
    ('ray', 'comm-torchrun-agent-label-local-rank-silent'):
        'the style puts Ray\'s worker prefix in the place of srun\'s label and torchrun\'s '
        '[defaultN]:, the two words whose product and sum give the global rank: no line '
        'says the silent worker ran, so every rank read timed out (ambiguous, retry, as '
        'before the fix)',
    ('ray+pybasic', 'comm-torchrun-agent-label-local-rank-silent'):
        'as for ray: srun\'s label and torchrun\'s [defaultN]: are replaced',
    ('ray+pybasic', 'launch-driver-torchrun-agent-label'):
        'as for ray: srun\'s label, the task that wrote the line, is replaced',
    ('mpirun', 'launch-driver-torchrun-agent-label'):
        'as for ray: srun\'s label, the task that wrote the line, is replaced by Open MPI\'s '
        'tag of PyTorch\'s rank',
    ('mpirun+loguru', 'launch-driver-torchrun-agent-label'):
        'as for mpirun: srun\'s label, the task that wrote the line, is replaced',
    ('termwrap', 'place-launcher-names-rank'):
        'one line of thirteen is longer than the terminal: a single broken line is read back '
        'only in a paste of at most ten lines, as one line of a usual width before an '
        'unwrapped one is as likely chance in a longer file (read-paste-long-line-usual-width-'
        'near-miss)',
    ('termwrap', 'launch-container-cli-nvml-mismatch-pyxis'):
        'as for place-launcher-names-rank: one line of ten (the container CLI\'s error under '
        'pyxis\'s prefix, 117 columns) is longer than the terminal, and a single broken line '
        'is read back only in a paste of at most ten lines',
    ('glog', 'read-spaced-rank-tags'):
        'the style puts a C++ logger\'s header (glog\'s "I1130 03:10:40.000000 123 file.cc:12] ") before each line, and a spaced "[Rank N]" after such a header is c10d\'s, a process group\'s rank, not the job\'s: it is not read there (prefix.c), so the rank the fixture names is not placed (its class and node are right)',
    ('absl', 'read-spaced-rank-tags'):
        'the style puts a C++ logger\'s header (glog\'s "I1130 03:10:40.000000 123 file.cc:12] ") before each line, and a spaced "[Rank N]" after such a header is c10d\'s, a process group\'s rank, not the job\'s: it is not read there (prefix.c), so the rank the fixture names is not placed (its class and node are right)',
    ('compose+glog', 'read-spaced-rank-tags'):
        'the style puts a C++ logger\'s header (glog\'s "I1130 03:10:40.000000 123 file.cc:12] ") before each line, and a spaced "[Rank N]" after such a header is c10d\'s, a process group\'s rank, not the job\'s: it is not read there (prefix.c), so the rank the fixture names is not placed (its class and node are right)',
    ('termwrap', 'trust-srun-task-two-ends-nccl-setup-rank'):
        'as for place-launcher-names-rank: one line of ten (the NCCL set-up line, 120 '
        'columns) is longer than the terminal, and a single broken line is read back only in '
        'a paste of at most ten lines; without its Init COMPLETE the job shows no progress and '
        'the outcome reads LAUNCH_FAILED (class, node, rank and containment unchanged)',
    ('termwrap', 'comm-lone-timeout-peers-finished'):
        'as for place-launcher-names-rank: two lines of 370 (the watchdog\'s timeout and its '
        'note) are longer than the terminal, and a single broken line is read back only in a '
        'paste of at most ten lines; with the timeout cut apart nothing fires',
    ('termwrap', 'app-tqdm-bar-advanced-then-late-import'):
        'the bars are one line of 1,041 columns joined by carriage returns, as tqdm writes a '
        'file; a terminal redraws them in place, so no terminal or pager copy holds that line '
        'broken at its width, and the pieces cut each bar apart (the progress that makes the '
        'outcome FAILED is not read: LAUNCH_FAILED)',
    ('termwrap', 'sto-torch-save-central-directory'):
        'as for place-launcher-names-rank: one line of thirteen (the RuntimeError) is longer '
        'than the terminal, and a single broken line is read back only in a paste of at most '
        'ten lines',
    ('termwrap', 'sto-lustre-rpc-quota-checkpoint-write'):
        'as for sto-torch-save-central-directory: the RuntimeError (one line of thirteen, 124 '
        'columns) is cut before "central directory", and py-exception reads the piece, a '
        'medium reading on rank 0 that outranks the kernel\'s weak -122 on the same node: '
        'application/python_exception on gpu204, fix-job (the user\'s, as the quota is; no '
        'node excluded)',
    ('termwrap', 'app-c-assert-srun-abort'):
        'as for place-launcher-names-rank: one line of twelve (the assertion) is longer than '
        'the terminal, and a single broken line is read back only in a paste of at most ten '
        'lines',
    ('termwrap', 'app-c-assert-localized-fr'):
        'as for app-c-assert-srun-abort: one line of ten (the French assertion, 148 '
        'columns) is longer than the terminal, and a single broken line is read back only in '
        'a paste of at most ten lines (its first piece, with three no-break spaces, is also '
        '103 bytes, not a usual width); nothing reads the assertion (unknown, no node blamed)',
    ('termwrap', 'sto-lustre-lost-echoed-in-output-stall'):
        'as for place-launcher-names-rank: one line of eleven (the Lustre loss the watchdog '
        'echoed, 187 columns) is longer than the terminal, and a single broken line is read '
        'back only in a paste of at most ten lines; with the loss cut apart the stall reads '
        'as the hang it would be without the echo (application/hang, hypothesis, on no node '
        'either way)',
    ('termwrap', 'app-cxx-chain-head-remote-error'):
        'as for place-launcher-names-rank: one line of ten (libstdc++\'s what() with NCCL\'s '
        'remote error) is longer than the terminal, its cut falls inside "network error", and a '
        'single broken line is read back only in a paste of at most ten lines',
    ('termwrap', 'launch-rdzv-gloo-connect-failed'):
        'the terminal\'s cut of rank 2\'s connect line falls right before its port, and a '
        'piece that starts "21843: " is read as srun\'s label, a line of its own, not a '
        'continuation: rank 2\'s line is lost; ranks 0 and 1 still read, and the class, '
        'subclass and outcome stay',
    ('squashed', 'launch-data-file-missing-near-miss'):
        'a traceback squashed without wrappers puts the exception right after the last '
        'frame\'s source line; py-exception refuses an exception after "<word>: " (its guard '
        'against quoted errors), and this source line ends with ":"',
    ('squashed', 'read-ray-dedup-words-without-prefix-near-miss'):
        'as for launch-data-file-missing-near-miss: squashed, the FileNotFoundError follows '
        'the last frame\'s source line, which ends with ":"',
    ('squashed', 'launch-ompi-mtl-ofi-call-failed'):
        'Open MPI\'s help texts are read only from the start of their line (inside a line '
        'they are as often quoted back); squashed without wrappers, the help text is the '
        'middle of one line',
    ('squashed', 'app-gromacs-fatal-error'):
        'GROMACS\' head is read only alone on its line ("Fatal error:" inside a line is as '
        'often a program\'s message about one); squashed, the head and its reason are one line',
    ('squashed', 'place-torchrun-other-failures-not-named'):
        'torchrun\'s summary is read by its sections, one line each (its "Failures:" and its '
        '"Root Cause" heads, an entry\'s time and exit code); squashed into one line, they '
        'are not told apart, and no rank is named',
    ('squashed', 'res-gpu-oom-elastic-error-file'):
        'the error file\'s members are read as records only alone on their lines; squashed, '
        'the OOM is text in quotes in the middle of a line, which the rules refuse on purpose '
        '(a quoted error is as often a message about one)',
    # session 26's fixtures: each gap on the safe side or the documented one of its family
    ('jsonl', 'read-paste-web-nbsp-quoted-literal-near-miss'):
        'as app-py-traceback-quoted-error-literal: the frame line inside a record\'s quoted '
        'value is not looked for, so the quoted source line reads as the error',
    ('logfmt', 'read-paste-web-nbsp-quoted-literal-near-miss'):
        'as for jsonl: the frame line inside a record\'s quoted value is not looked for',
    ('docker-json', 'read-paste-web-nbsp-quoted-literal-near-miss'):
        'as for jsonl: the frame line inside a record\'s quoted value is not looked for',
    ('jsonl-exc', 'read-paste-web-nbsp-quoted-literal-near-miss'):
        'as app-py-traceback-quoted-error-literal: one exc_info string, its lines not told '
        'apart as frames and code',
    ('squashed', 'read-paste-web-nbsp-quoted-literal-near-miss'):
        'as app-py-traceback-quoted-error-literal: no frame line above the source line once '
        'the line breaks are lost',
    ('mpirun', 'launch-rendezvous-job-owner-near-miss'):
        'srun\'s label is what ties each rendezvous error to its task, and so through srun\'s '
        'task lines to ax07 and ax08; in its place this style writes another launcher\'s '
        'prefix, so no node is named (fewer nodes, never a wrong one); the class and the '
        'owner this fixture is about stand',
    ('mpirun+loguru', 'launch-rendezvous-job-owner-near-miss'):
        'as for mpirun: the label srun wrote is replaced, so no node is named',
    ('ray', 'launch-rendezvous-job-owner-near-miss'):
        'as for mpirun: the label srun wrote is replaced by Ray\'s worker prefix, so no node '
        'is named',
    ('ray+pybasic', 'launch-rendezvous-job-owner-near-miss'):
        'as for ray: no node is named',
    ('progress-cr', 'launch-rendezvous-job-owner-near-miss'):
        'a progress bar redrawn in front of the labelled line hides srun\'s label: no node '
        'is named',
    ('progress-cr', 'place-launcher-words-under-rank-tag-map-stands'):
        'a progress bar redrawn in front of the line hides the worker\'s own rank tag, so the '
        'launcher\'s words count as the launcher\'s and the rank map\'s placement is not '
        'used: no node (the safe side of what the fixture tests)',
    ('termwrap', 'read-record-search-hit-source-pyexc'):
        'a search hit is one long JSON object on one line; broken at a terminal\'s width it '
        'is no longer one record, and its message is not read (unknown, no node)',
    ('squashed', 'trust-job-log-opens-with-sacct-rows'):
        'with its line breaks lost the whole log is one line that opens as the printed sacct '
        'rows: nothing after the record can be told apart as the job\'s own output, so the '
        'file reads as the record and the traceback is not read (unknown, no node: the safe '
        'side; the printed state still never outranks sacct\'s)',
    ('squashed', 'trust-job-log-opens-with-scontrol-record'):
        'as trust-job-log-opens-with-sacct-rows: one line that opens as the printed scontrol '
        'record reads as the record (unknown, no node)',
    ('squashed', 'trust-scontrol-state-after-sacct'):
        'as trust-job-log-opens-with-sacct-rows: the squashed job log reads as a record, so '
        'the traceback in it is not read (unknown, no node)',
}
# A bare "rank N: " is read as the program's rank tag only where it starts the text (prefix.c,
# spaced_rank): after a logger's level it is as often the message's own words ("INFO - rank
# 3: loaded shard 12"). launch-pmix-prose-near-miss's solver prints "rank 3: ERROR: CFL
# condition violated ...": unwrapped, the tag is taken off and program-error-line reads the
# program's own ERROR: at the text's start (the fallback lead, rank 3, hypothesis); under a
# logger's record the words stay, nothing reads the line, and the verdict is unknown, as it
# was for every style before spaced rank tags were read.
for _style in ('pylog', 'pylog-named', 'pylog-colon', 'pylog-bracket', 'glog', 'absl', 'pybasic', 'loguru', 'zap-tabs', 'accelerate', 'vllm', 'level-first', 'hydra', 'structlog', 'env-logger', 'tracing', 'logrus-tty', 'mpirun+loguru', 'compose+glog', 'ray+pybasic'):
    KNOWN[(_style, 'launch-pmix-prose-near-miss')] = (
        'a bare "rank 3: " is a rank tag only where it starts the text; under this style\'s '
        'record it stays message words, so program-error-line does not read the solver\'s '
        'ERROR: and the verdict is unknown (the fixture asserts only that mpi-launch-failed '
        'does not fire)')
# A parallel shell's "gpu07: " is a wrapper only where the peel meets it outside a logger's
# level: after one it is the program's words (READING.md). net-ibv-devinfo-pdsh-two-hosts-one-
# down is pdsh's capture of ibv_devinfo; under a logger's record each row reads "gpu07:
# state: PORT_DOWN (1)", which ib-port-state-down-app (a row of the tool's own layout) does
# not read: unknown, no node blamed, as every style gave before pdsh's listings were read per
# host (scan.c, beside).
for _style in ('absl', 'accelerate', 'compose', 'compose+glog', 'env-logger', 'gha', 'glog', 'hydra', 'kubectl-ts', 'level-first', 'logrus-tty', 'loguru', 'mpirun+loguru', 'pybasic', 'pylog', 'pylog-bracket', 'pylog-colon', 'pylog-named', 'ray+pybasic', 'structlog', 'tracing', 'vllm', 'zap-tabs'):
    KNOWN[(_style, 'net-ibv-devinfo-pdsh-two-hosts-one-down')] = (
        'pdsh\'s "gpu07: " behind this style\'s level is message words, not a host prefix: '
        'the PORT_DOWN row is not read as a listing row and the verdict is unknown, no node '
        'blamed (the safe side; the same as before per-host listings)')
# launch-shell-env-program-path-missing-zsh: zsh's refusal on both tasks, one a node, is
# placed on the two nodes by srun's --label alone (srun's own lines name two failed tasks, so
# they place nothing). A style that puts another launcher's prefix where the label was, or a
# bar between the label and the text, leaves the lines on no Slurm task: the same cause on no
# node, fix-job (every node failed alike, so none was to be excluded either way).
for _style in ('mpirun', 'mpirun+loguru', 'ray', 'ray+pybasic', 'progress-cr'):
    KNOWN[(_style, 'launch-shell-env-program-path-missing-zsh')] = (
        'the two ranks\' lines are placed on their nodes by srun\'s --label alone; this style '
        'replaces the label (or puts a bar after it), so the same launch_config/import stands '
        'on no node, fix-job (no node blamed: every node failed alike)')
KNOWN[('squashed', 'place-torchrun-later-failure-segv-bystander')] = (
    'torchrun\'s summary squashed onto one line has no entries: the later failure\'s SIGSEGV '
    'row cannot be told from the root cause\'s, and is read as a fallback at hypothesis on no '
    'node and no rank (not placed on the root cause\'s rank: the safe side)')
KNOWN[('squashed', 'place-torchrun-root-cause-segv-others-later')] = (
    'as place-torchrun-later-failure-segv-bystander: the squashed summary names no rank, so '
    'native_crash stands on no node and no rank (the safe side)')


# read-ray-relayed-gpu-oom-driver-host: RayTaskError's header "(pid=N, ip=A, ...)" is what
# marks the failure as relayed.  These styles fold the whole traceback into one line (squashed)
# or one record's exc_info (jsonl-exc), and an observation keeps the first 512 bytes of its
# line, which end before the header: the OOM is placed on srun's failed task's host, hpa07, as
# before the change, a guess with containment fix-job (no node excluded, nothing to repair).
for _style in ('squashed', 'jsonl-exc'):
    KNOWN[(_style, 'read-ray-relayed-gpu-oom-driver-host')] = (
        'the folded traceback\'s first 512 bytes, all an observation keeps of its line, end '
        'before RayTaskError\'s "(pid=N, ip=A" header: gpu_oom is placed on srun\'s failed '
        'task\'s host as before the change, a guess, fix-job: no node excluded or repaired')


LABEL_REPLACED = (
    'these styles turn srun\'s "N: " label into another launcher\'s per-rank prefix (Open '
    'MPI\'s "[1,N]<stderr>:", Ray\'s worker prefix) or draw a progress bar before it (the line '
    'read as the terminal shows it, after the last CR): no line carries srun\'s label, so '
    'nothing tells a launcher\'s report under a label from one under none (att_place.c, '
    'report_unlabelled); the ECC error is read on no node (the positive) or on rank 1 of hx06 '
    '(the near miss): never another node (the safe side)')
for _st in ('mpirun', 'ray', 'progress-cr', 'mpirun+loguru', 'ray+pybasic'):
    KNOWN[(_st, 'trust-launcher-report-rank-srun-one-task-a-node')] = LABEL_REPLACED
    KNOWN[(_st, 'trust-launcher-report-rank-srun-one-task-a-node-labelled-near-miss')] = \
        LABEL_REPLACED
KNOWN[('progress-cr', 'trust-launcher-report-under-label-python-step')] = (
    'the bar this style draws before srun\'s "N: " label hides it (the line read as the terminal '
    'shows it, after the last CR): no line carries srun\'s label, so the ECC error has no task '
    'of srun\'s to be placed by and srun\'s one failed task does not place it beside the '
    'report (att_place.c, report_program keeps the report from placing rank 3): read on no '
    'node, never another node (the safe side)')


KNOWN[('crlf', 'read-output-hole-inside-line-after-hit-near-miss')] = (
    'the style ends the text before a hole inside a line with the CR of a CRLF, which no writer '
    'puts there (the hole is lost pages between two writes, the line\'s CRLF among them): the '
    'reader takes that CR for a progress bar\'s redraw and reads what follows it, the hole, as '
    'the line: nothing fires, unknown (the safe side: no node blamed)')
KNOWN[('progress-cr', 'read-output-hole-inside-line-after-hit-near-miss')] = (
    'the bar this style draws before srun\'s line follows the hole on the OSError\'s physical '
    'line: the reader reads that line as the terminal shows it, the text after the last CR '
    '(srun\'s teardown alone), so the OSError is not read: unknown (the safe side: no node '
    'blamed)')
KNOWN[('docker-json', 'read-output-hole-inside-line-after-hit-near-miss')] = (
    'the OSError\'s record is followed on its line by the hole and srun\'s record: the line is '
    'no single record, so the record\'s rank tag is not peeled: storage/io_error on gq23 stands '
    'without rank 5 (the safe side)')
for _style in ('crlf', 'progress-cr', 'docker-json'):
    KNOWN[(_style, 'read-output-hole-after-hit-within-kept-head-near-miss')] = (
        'as read-output-hole-inside-line-after-hit-near-miss in this style, a shorter hole: '
        + KNOWN[(_style, 'read-output-hole-inside-line-after-hit-near-miss')])
KNOWN[('jsonl-exc', 'read-output-hole-inside-line')] = (
    'the style folds the traceback into one record before it meets the hole, so the NULs are '
    'escaped text inside the record and the line does not start after them: storage/io_error '
    'on gq23 stands without rank 5 (the safe side)')

# A merge of several nodes' outputs, "STAMP HOST message" (prefix.c, merged_host): the stamp
# and host are the collector's, outside every wrapper of the lines it merged.
for _style in ('absl', 'accelerate', 'compose', 'compose+glog', 'docker-json', 'env-logger',
               'gha', 'glog', 'hydra', 'jsonl', 'jsonl-exc', 'kubectl-ts', 'level-first',
               'logfmt', 'logrus-tty', 'loguru', 'mpirun+loguru', 'pybasic', 'pylog',
               'pylog-bracket', 'pylog-colon', 'pylog-named', 'ray+pybasic', 'structlog',
               'syslog-date', 'tracing', 'vllm', 'zap-tabs'):
    for _name in ('read-merged-stamp-host-output-names-writer',
                  'read-merged-stamp-host-output-kernel-words-near-miss'):
        KNOWN[(_style, _name)] = (
            'the style puts its own wrapper before the merge\'s stamp, which a collector writes '
            'outside every line it merged: behind it the stamp is the program\'s and the host '
            'is message words, not read: application/cuda_fault stands on no node (the safe '
            'side: fewer nodes, none blamed)')

for _style in ('md-quote', 'gha'):
    KNOWN[(_style, 'app-logic-error-beside-link-flap-near-miss')] = (
        'the kernel log is one line: a quote\'s markers or a collector\'s stamp are a paste\'s '
        'shape only over two lines or more (a lone `> ` line is as often a shell\'s prompt), so '
        'the line is read as the job\'s text: ib_link from the job\'s output on no node (the '
        'safe side: fewer nodes)')
KNOWN[('html-escape', 'net-ib-one-reporter-many-peers')] = (
    'the job output\'s head the shape is told from (its first 8 KiB, NCCL INFO lines; the '
    'first < > " \' is 24 KB in) holds no escape, so the file is not known to be escaped and '
    'the entities of its later lines stay: the peers\' votes are not read, collective_timeout '
    'on no node (the safe side)')
KNOWN[('html-escape', 'net-ib-split-votes')] = (
    'as for net-ib-one-reporter-many-peers: the job output\'s escapes start 21 KB in, past '
    'its head; the votes are '
    'not read, collective_timeout on no node (the safe side)')


# What one style's run needs besides its name: set before the worker processes fork, so that
# each inherits it instead of receiving the baseline's 1,600 entries with every style
_RUN = {}


def run_style(style):
    """STYLE's wrapped tree built and checked: its report lines, whether it changed a verdict,
    whether it wrapped no file."""
    cli, rules, fixdir, base, tmp = (_RUN[k] for k in ('cli', 'rules', 'fixdir', 'base', 'tmp'))
    out = os.path.join(tmp, style)
    n = build(style, rules, fixdir, base, out)
    # a case's threads are compared by rules check on the fixtures themselves: not
    # again in every style (POSTMORTEM_CHECK_THREADS=1 skips the second run)
    r = subprocess.run([cli, 'rules', 'check', out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT,
                       env=dict(os.environ, LC_ALL='C', POSTMORTEM_CHECK_THREADS='1'))
    shutil.rmtree(out)
    text = r.stdout.decode('utf-8', 'replace')
    m = re.search(r'(\d+) cases: (\d+) passed, (\d+) failed, (\d+) errors', text)
    cases, bad, name, said = {}, [], None, []
    for ln in text.split('\n'):
        f = re.match(r'(FAIL|ERROR) +([^:]+):', ln)
        if f:
            name = f.group(2)
            cases[name] = [ln]
        elif ln.startswith('  ') and name:
            cases[name].append(ln)
    for name, lines in sorted(cases.items()):
        why = KNOWN.get((style, name))
        if why:
            said.append('  [%s] known: %s: %s' % (style, name, why))
        else:
            bad += ['  [%s] %s' % (style, x.strip()) for x in lines]
    for (st, name), why in sorted(KNOWN.items()):
        if st == style and name not in cases and name in base:
            said.append('  [%s] %s passes now: its KNOWN entry can go' % (style, name))
    said.append('%-14s %3d files wrapped: %s' % (style, n, m.group(0) if m else 'no summary'))
    failed = not m or bool(bad)
    if failed:
        said += bad
    elif not n:  # a style that wraps nothing tests nothing
        said.append('  [%s] no file was wrapped' % style)
    return said, failed, not failed and not n


def workers():
    """Styles checked at once: PM_WRAPPER_JOBS, else the CPUs this process may use (at most
    four).  Each style's rules check runs on one thread, so on CI's two cores the test, the
    longest of make check, ran on one while the other sat idle."""
    try:
        n = int(os.environ.get('PM_WRAPPER_JOBS', '0'))
    except ValueError:
        n = 0
    return n if n > 0 else max(1, min(4, len(os.sched_getaffinity(0))))


def check(build_dir, src_dir, styles):
    cli = os.path.join(build_dir, 'cli', 'postmortem')
    rules = os.path.join(src_dir, 'rules')
    fixdir = os.path.join(rules, 'fixtures')
    base = baseline(cli, rules, fixdir)
    styles = styles or list(STYLES)
    failed = unwrapped = 0
    jobs = workers()
    tmp = tempfile.mkdtemp(prefix='pm-wrappers.', dir=tree_dir(jobs, tree_size(rules)))
    _RUN.update(cli=cli, rules=rules, fixdir=fixdir, base=base, tmp=tmp)
    try:
        # forked workers inherit _RUN; the reports are printed in the styles' order
        ctx = multiprocessing.get_context('fork')
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
            for said, bad, none in pool.map(run_style, styles):
                print('\n'.join(said), flush=True)
                failed += bad
                unwrapped += none
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # on the project's fixtures every style wraps some file: one that wraps none is broken;
    # a few fixtures (a change's new ones) may hold none of a style's shapes
    print('%d fixtures x %d styles; %d styles changed a verdict; %d styles wrapped no file' %
          (len(base), len(styles), failed, unwrapped))
    return 1 if failed or unwrapped else 0


def main():
    if sys.argv[1:] == ['list']:
        print('\n'.join(STYLES))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == 'check':
        return check(sys.argv[2], sys.argv[3], sys.argv[4:])
    if len(sys.argv) == 6 and sys.argv[1] == 'wrap':
        _, _, style, path, nodes, file_node = sys.argv
        text, _ = read(path)
        out = wrap(style, text or '', json.loads(nodes), file_node or None, 'app_log')
        sys.stdout.buffer.write(out.encode('utf-8', errors='surrogateescape'))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
