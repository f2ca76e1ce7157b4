#!/usr/bin/env python3
"""profiles.py -- the checks of profiles.sh on the outputs of cce-decode
for one log, in the directory DIR (made by profiles.sh):

  folded, records, text        the formats without --depth
  folded.K, records.K, text.K  with --depth=K, K in DEPTHS
  prof.pb.gz, prof.K.pb.gz     --format=pprof, without and with --depth=2
  ss.json, ss.K.json           --format=speedscope, without and with
                               --depth=1

Usage: profiles.py DIR PPROF PROTOC PROTO_DIR SCHEMA
Tools given as "" are not used: their checks are skipped with a line
that says so.  Prints PASS/FAIL/SKIP lines, then "N passed, N failed";
exits 1 if any check failed.
"""

import collections
import gzip
import json
import os
import re
import subprocess
import sys

PSEUDO = ("[thread]", "[signal]")
INCOMPLETE = "[incomplete]"
DEPTHS = (1, 2, 3)

d, pprof, protoc, proto_dir, schema = sys.argv[1:6]
passed = failed = 0


def result(name, why, detail=""):
    global passed, failed
    if why:
        print("FAIL: profiles: %s: %s" % (name, why))
        failed += 1
    else:
        print("PASS: profiles: %s%s" % (name, ": " + detail if detail else ""))
        passed += 1


def skip(name, why):
    print("SKIP: profiles: %s: %s" % (name, why))


def read(name):
    with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
        return f.read()


def folded(name):
    c = collections.Counter()
    for line in read(name).splitlines():
        path, _, n = line.rpartition(" ")
        c[path] += int(n)
    return c


def cut(path, k):
    """The innermost K frames of the folded PATH: [thread] and [signal]
    do not count and are kept only between frames that do; the
    [incomplete] marker stays only when fewer than K frames are left."""
    frames = path.split(";") if path else []
    inc = bool(frames) and frames[0] == INCOMPLETE
    if inc:
        frames = frames[1:]
    real = [i for i, f in enumerate(frames) if f not in PSEUDO]
    if len(real) >= k:
        return ";".join(frames[real[-k]:])
    return ";".join(([INCOMPLETE] if inc else []) + frames)


def cut_all(c, k):
    r = collections.Counter()
    for path, n in c.items():
        r[cut(path, k)] += n
    return r


def diff(a, b, what_a, what_b):
    """Empty if the counters A and B are equal, else a few differences."""
    if a == b:
        return ""
    out = []
    for key in sorted(set(a) | set(b)):
        if a[key] != b[key]:
            out.append("%r: %s %d, %s %d" % (key, what_a, a[key], what_b,
                                            b[key]))
    return "; ".join(out[:4]) + (" ..." if len(out) > 4 else "")


def text_records(name):
    """The records of a text output: (thread, tag, frames root first),
    each frame (name, inlined)."""
    recs = []
    cur = None
    for line in read(name).splitlines():
        m = re.match(r"record \d+: thread (\d+) tag (\S+)", line)
        if m:
            cur = (m.group(1), m.group(2), [])
            recs.append(cur)
            continue
        m = re.match(r"  #\d+  (\S+)(.*)$", line)
        if m and cur is not None:
            name_, rest = m.group(1), m.group(2)
            if name_ == "??" and rest.startswith(" (incomplete"):
                cur[2].append((INCOMPLETE, False))
            else:
                cur[2].append((name_, rest.endswith("[inlined]")))
    return [(t, g, list(reversed(fr))) for t, g, fr in recs]


def records(name):
    out = []
    for line in read(name).splitlines():
        thread, tag, path = line.split("\t", 2)
        out.append((thread, tag, path))
    return out


# ---- the outputs without --depth --------------------------------------------
full = folded("folded")
recs = records("records")
total = sum(full.values())
result("folded has events", "" if total > 0 and len(full) > 5 else
       "only %d events in %d paths" % (total, len(full)),
       "%d events, %d paths" % (total, len(full)))
kinds = [p for p in full if p.startswith(INCOMPLETE)]
sig = [p for p in full if "[signal]" in p]
inl = [r for r in text_records("text") if any(i for _, i in r[2])]
if not kinds or not sig or not inl:
    print("note: profiles: the log has %d incomplete paths, %d with [signal],"
          " %d records with inlined frames" % (len(kinds), len(sig), len(inl)))

# The text and records formats are the same contexts as folded.
c = collections.Counter(p for _, _, p in recs)
result("records and folded agree", diff(c, full, "records", "folded"))
c = collections.Counter(";".join(n for n, _ in fr)
                        for _, _, fr in text_records("text"))
result("text and folded agree", diff(c, full, "text", "folded"))

# ---- --depth ---------------------------------------------------------------
for k in DEPTHS:
    got = folded("folded.%d" % k)
    want = cut_all(full, k)
    result("folded --depth=%d is folded cut to %d frames" % (k, k),
           diff(got, want, "--depth", "cut"), "%d paths" % len(got))
    # Per record, in the order of the log.
    rk = records("records.%d" % k)
    bad = [(a, b) for a, b in zip(rk, recs)
           if a[:2] != b[:2] or a[2] != cut(b[2], k)]
    why = ""
    if len(rk) != len(recs):
        why = "%d records, %d without --depth" % (len(rk), len(recs))
    elif bad:
        why = "%d records differ, first %r for %r" % (len(bad), bad[0][0],
                                                      bad[0][1])
    result("records --depth=%d cuts each record's path" % k, why)
    tk = text_records("text.%d" % k)
    tf = text_records("text")
    bad = [i for i, (a, b) in enumerate(zip(tk, tf))
           if a[:2] != b[:2]
           or ";".join(n for n, _ in a[2])
           != cut(";".join(n for n, _ in b[2]), k)]
    why = ""
    if len(tk) != len(tf):
        why = "%d records, %d without --depth" % (len(tk), len(tf))
    elif bad:
        why = "%d records differ, first record %d" % (len(bad), bad[0] + 1)
    result("text --depth=%d cuts each record's backtrace" % k, why)
    # k-CCF invariants: the counts add up to the events, and a context's
    # count is the sum of its extensions by one more caller.
    result("--depth=%d counts sum to the events" % k,
           "" if sum(got.values()) == total else
           "%d, not %d" % (sum(got.values()), total))
    if k > 1:
        shorter = folded("folded.%d" % (k - 1))
        up = cut_all(got, k - 1)
        result("--depth=%d contexts cut to %d are --depth=%d's" % (k, k - 1,
                                                                   k - 1),
               diff(up, shorter, "from --depth=%d" % k,
                    "--depth=%d" % (k - 1)))
        bad = [(p, n) for p, n in got.items() if n > shorter[cut(p, k - 1)]]
        result("--depth=%d: no context counts more than its parent" % k,
               "%r counts %d" % bad[0] if bad else "")


# ---- pprof -----------------------------------------------------------------
def pprof_raw(path):
    """(thread, tag, stack) -> count from pprof -raw, each stack a tuple
    of (name, inlined) root first; and the locations' line counts."""
    out = subprocess.run([pprof, "-raw", path], capture_output=True,
                         text=True, check=True).stdout
    lines = out.splitlines()
    i = lines.index("Samples:") + 2      # after the sample type line
    samples = []
    while i < len(lines) and lines[i] and not lines[i].startswith("Locations"):
        m = re.match(r"^\s+(\d+):((?: \d+)*)\s*$", lines[i])
        if m:
            samples.append([int(m.group(1)), m.group(2).split(), {}])
        else:
            for k, v in re.findall(r"(\w+):\[([^\]]*)\]", lines[i]):
                samples[-1][2][k] = v
        i += 1
    locs = {}
    cur = None
    for line in lines[i + 1:]:
        if line.startswith("Mappings"):
            break
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (\S+) ", line)
        if m:
            cur = locs[m.group(1)] = [m.group(2)]
            continue
        m = re.match(r"^\s+(\S+) \S*:\d+ s=\d+$", line)
        if m and cur is not None:
            cur.append(m.group(1))
    c = collections.Counter()
    for n, ids, labels in samples:
        stack = []
        for lid in reversed(ids):       # root first
            fr = locs[lid]              # innermost first
            for j, name in enumerate(reversed(fr)):
                stack.append((name, j > 0))
        c[(labels.get("thread"), labels.get("tag"), tuple(stack))] += n
    return c, locs


def pprof_traces(path):
    """path -> count from pprof -traces, root first, joined by ';'."""
    out = subprocess.run([pprof, "-traces", path], capture_output=True,
                         text=True, check=True).stdout
    c = collections.Counter()
    for block in out.split("-----------+")[1:]:
        n, stack = None, []
        for line in block.splitlines()[1:]:
            if re.match(r"^\s*[A-Za-z_]\w*:\s", line):
                continue                 # a label
            m = re.match(r"^\s+(\d+)\s{3}(\S+)", line)
            if m:
                n = int(m.group(1))
                stack.append(m.group(2))
                continue
            m = re.match(r"^\s{13}(\S+)", line)
            if m:
                stack.append(m.group(1))
        if n is not None:
            c[";".join(reversed(stack))] += n
    return c


def text_stacks(recs_, k=None):
    """(thread, tag, stack) -> count of text records: what pprof -raw
    shows, a frame inlined unless it is the root of what is left."""
    c = collections.Counter()
    for t, g, fr in recs_:
        stack = tuple((n, i and j > 0 and n != INCOMPLETE)
                      for j, (n, i) in enumerate(fr))
        # After an [incomplete] root, the first frame starts a location.
        if stack and stack[0][0] == INCOMPLETE and len(stack) > 1:
            stack = (stack[0], (stack[1][0], False)) + stack[2:]
        c[(t, g, stack)] += 1
    return c


if not pprof:
    skip("pprof", "no pprof (see above)")
else:
    for name, want, recs_ in (("prof.pb.gz", full, text_records("text")),
                              ("prof.2.pb.gz", cut_all(full, 2),
                               text_records("text.2"))):
        try:
            tr = pprof_traces(os.path.join(d, name))
            raw, locs = pprof_raw(os.path.join(d, name))
        except (subprocess.CalledProcessError, ValueError, KeyError,
                IndexError) as e:
            result("pprof reads " + name, "pprof failed: %s" % e)
            continue
        result("pprof -traces of %s is folded%s" % (
            name, " --depth=2" if ".2." in name else ""),
            diff(tr, want, "pprof", "folded"), "%d stacks" % len(tr))
        result("pprof -raw of %s: threads, tags and inlined frames are the "
               "text format's" % name,
               diff(raw, text_stacks(recs_), "pprof", "text"),
               "%d locations, %d with inlined frames"
               % (len(locs), sum(len(v) > 1 for v in locs.values())))
    top = subprocess.run([pprof, "-top", os.path.join(d, "prof.pb.gz")],
                         capture_output=True, text=True)
    m = re.search(r"of (\d+) total", top.stdout)
    result("pprof -top's total is the events",
           "" if top.returncode == 0 and m and int(m.group(1)) == total else
           "exit %d, %r" % (top.returncode, top.stdout[:200] + top.stderr[:200]))

if not protoc:
    skip("protoc --decode", "no protoc (see above)")
else:
    with gzip.open(os.path.join(d, "prof.pb.gz")) as f:
        raw = f.read()
    p = subprocess.run([protoc, "--decode=perftools.profiles.Profile",
                        "-I", proto_dir, "profile.proto"], input=raw,
                       capture_output=True)
    out = p.stdout.decode("utf-8", "replace")
    n = out.count("\nsample {") + out.startswith("sample {")
    strings = re.findall(r'^string_table: "(.*)"$', out, re.M)
    why = ""
    if p.returncode != 0:
        why = "exit %d: %s" % (p.returncode, p.stderr.decode()[:200])
    elif not strings or strings[0] != "":
        why = "the string table does not start with \"\""
    elif not 0 < n <= len(full) * 8:
        why = "%d samples" % n
    result("protoc --decode parses prof.pb.gz", why,
           "%d samples, %d strings" % (n, len(strings)))


# ---- speedscope ------------------------------------------------------------
def speedscope(name, want):
    with open(os.path.join(d, name), encoding="utf-8") as f:
        doc = json.load(f)
    frames = doc["shared"]["frames"]
    c = collections.Counter()
    per_thread = collections.defaultdict(collections.Counter)
    for prof in doc["profiles"]:
        if prof["unit"] != "none":
            continue
        m = re.match(r"thread (\d+)$", prof["name"])
        s = sum(prof["weights"])
        if (not m or prof["type"] != "sampled"
                or len(prof["samples"]) != len(prof["weights"])
                or prof["endValue"] - prof["startValue"] != s):
            return doc, "bad profile %r" % prof["name"], None
        for st, w in zip(prof["samples"], prof["weights"]):
            path = ";".join(frames[i]["name"] for i in st)
            c[path] += w
            per_thread[m.group(1)][path] += w
    return doc, diff(c, want, "speedscope", "folded"), per_thread


for name, want, rname in (("ss.json", full, "records"),
                          ("ss.1.json", cut_all(full, 1), "records.1")):
    try:
        doc, why, per_thread = speedscope(name, want)
    except (ValueError, KeyError, IndexError, TypeError) as e:
        result("speedscope " + name, "not a speedscope file: %s" % e)
        continue
    result("speedscope %s: the samples of its profiles are folded's" % name,
           why, "%d profiles" % len(doc["profiles"]))
    if per_thread is not None:
        byt = collections.defaultdict(collections.Counter)
        for t, _, p in records(rname):
            byt[t][p] += 1
        bad = [t for t in set(byt) | set(per_thread)
               if byt[t] != per_thread[t]]
        result("speedscope %s: each thread's profile is its records" % name,
               "threads %s differ" % bad if bad else "",
               "%d threads" % len(per_thread))
    if not schema:
        skip("speedscope schema", "no schema (see above)")
        continue
    try:
        import jsonschema
    except ImportError:
        skip("speedscope schema", "no python3-jsonschema")
        continue
    with open(schema, encoding="utf-8") as f:
        sch = json.load(f)
    try:
        jsonschema.validate(doc, sch)
        why = ""
    except jsonschema.ValidationError as e:
        why = e.message[:300]
    result("speedscope %s validates against file-format-schema.json" % name,
           why)

print("== profiles: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
