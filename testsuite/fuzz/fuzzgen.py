# fuzzgen.py -- random C programs for the differential tester of calling
# contexts (cce-fuzz), in the spirit of Csmith.
#
# A program is first a model: plain lists and dicts (so that it can be
# saved as JSON, shrunk and rendered again), then C source.  The model is
#
#   { "seed": N, "fuel": N, "dmax": N,
#     "funcs": [FUNC, ...],          # funcs[0] is main
#     "tables": [TABLE, ...] }
#
#   FUNC  = { "name", "mod", "static", "inline", "sig", "body": [ACTION] }
#     mod:    "x0" "x1" "x2" (translation units of the executable),
#             "lc" (a shared library built with cce),
#             "lp" (a shared library built without cce: outside the program)
#     inline: "no" (noinline), "may" (GCC decides), "always" (always_inline)
#     sig:    "s0" unsigned (unsigned d)
#             "s1" unsigned (unsigned d, unsigned a)
#             "s2" long (long d)
#             "cb" unsigned (unsigned d, fn_s0 cb)    (library functions)
#             "cmp" int (const void *, const void *)  (qsort/bsearch)
#             "start" void *(void *)                  (thread start routine)
#             "main"
#   TABLE = { "name", "mod", "kind": "arr"|"field", "sig", "targets": [name] }
#   ACTION, by "k":
#     log      cce_log (TAG), under an optional condition
#     call     a direct call of "f"; with "rep": N, N times in a loop
#     self     a call of the function itself while d < "lim"; where "lim"
#              is a multiple of 3, a self tail call (return f (...))
#     tail     return f (...): a tail call (last action only)
#     tab      a call through table "t" (an array of pointers, or a field
#              of an array of structs)
#     qsort    qsort with comparator "f";  bsearch: bsearch with it
#     setjmp   setjmp, then a call of "f"; a longjmp below returns here
#     longjmp  longjmp to the innermost setjmp, when the condition holds
#     thread   pthread_create of start routine "f", then pthread_join
#              (in main only: every thread has fuel of its own)
#     lib      a call of library function "f" (sig cb: with callback "cb")
#     cb       in a library function of sig cb: call the callback
#   Conditions "cond": [M, R] -- taken when tick % M == R (tick counts the
#   calls of the thread), or absent.
#
# Every function starts with
#     if (fuel == 0 || d >= DMAX) return ...; fuel--; tick++;
# so every program ends, whatever cycles its calls make (recursion through
# direct calls, pointers, callbacks), and behaves the same at -O0 and at
# -O3: it has no undefined behaviour and no data races (threads are joined
# right after they are made; fuel, tick and the setjmp chain are per
# thread).
#
# Usage as a script: fuzzgen.py SEED OUTDIR   (writes the sources and
# model.json; prints the build description)

import json
import os
import random
import sys

SIGS_CALLABLE = ("s0", "s1", "s2")
RET = {"s0": "unsigned", "s1": "unsigned", "s2": "long", "cb": "unsigned"}
PARAMS = {"s0": "unsigned d", "s1": "unsigned d, unsigned a",
          "s2": "long dl", "cb": "unsigned d, fn_s0 cb"}
FNTYPE = {"s0": "fn_s0", "s1": "fn_s1", "s2": "fn_s2", "cb": "fn_cb"}


def args_for(sig, caller_has_cb=False):
    if sig == "s0":
        return "d + 1"
    if sig == "s1":
        return "d + 1, s"
    if sig == "s2":
        return "(long) d + 1"
    raise ValueError(sig)


# ---- generation ------------------------------------------------------------

def generate(seed):
    """The model of the program of SEED."""
    rnd = random.Random(seed)
    m = {"seed": seed, "fuel": rnd.choice((150, 300, 500, 800)),
         "dmax": rnd.choice((24, 40, 60, 90)), "funcs": [], "tables": []}
    nx = rnd.randint(1, 3)                  # translation units
    use_lc = rnd.random() < 0.3
    use_lp = rnd.random() < 0.3
    use_threads = rnd.random() < 0.25
    n = rnd.randint(6, 28)
    funcs = m["funcs"]
    funcs.append({"name": "main", "mod": "x0", "static": False,
                  "inline": "no", "sig": "main", "body": []})
    twins = 0
    for i in range(1, n):
        mod = "x%d" % rnd.randrange(nx)
        sig = rnd.choice(("s0", "s0", "s0", "s1", "s2"))
        static = rnd.random() < 0.6
        inline = rnd.choice(("no", "no", "may", "may", "always"))
        if inline != "no":
            static = True
        name = "f%d" % i
        if static and nx > 1 and rnd.random() < 0.15:
            name = "twin%d" % (twins % 2)        # the same name in two TUs
            twins += 1
        funcs.append({"name": name, "mod": mod, "static": static,
                      "inline": inline, "sig": sig, "body": []})
    # Names must be unique per module for static functions and globally
    # for the others; rename clashes.
    seen = {}
    for i, f in enumerate(funcs):
        key = (f["mod"] if f["static"] else "*", f["name"])
        gkey = ("*", f["name"])
        if key in seen or gkey in seen or (
                not f["static"] and any(k[1] == f["name"] for k in seen)):
            f["name"] = "f%d" % i
            key = (f["mod"] if f["static"] else "*", f["name"])
        seen[key] = i
    ncmp = rnd.randint(0, 2)
    for j in range(ncmp):
        funcs.append({"name": "cmp%d" % j, "mod": "x%d" % rnd.randrange(nx),
                      "static": rnd.random() < 0.7, "inline": "no",
                      "sig": "cmp", "body": []})
    if use_threads:
        for j in range(rnd.randint(1, 2)):
            funcs.append({"name": "start%d" % j, "mod": "x0",
                          "static": True, "inline": "no", "sig": "start",
                          "body": []})
    if use_lc:
        for j in range(rnd.randint(1, 4)):
            funcs.append({"name": "lc_f%d" % j, "mod": "lc", "static": False,
                          "inline": "no", "sig": rnd.choice(("s0", "cb")),
                          "body": []})
    if use_lp:
        for j in range(rnd.randint(1, 3)):
            funcs.append({"name": "lp_f%d" % j, "mod": "lp", "static": False,
                          "inline": "no", "sig": rnd.choice(("s0", "cb")),
                          "body": []})
    index = {id(f): i for i, f in enumerate(funcs)}

    def visible(caller, f):
        """Can CALLER name F (call it, take its address)?"""
        if f is caller and f["inline"] == "always":
            return False
        if f["sig"] == "main":
            return False
        cm, fm = caller["mod"], f["mod"]
        if cm in ("lc", "lp"):
            return fm == cm and index[id(f)] > index[id(caller)]
        if fm in ("lc", "lp"):
            return True
        return not f["static"] or fm == cm

    def direct_ok(caller, f):
        if not visible(caller, f) or f["sig"] not in SIGS_CALLABLE + ("cb",):
            return False
        # always_inline functions are called only from before them (no
        # recursive inlining).
        if f["inline"] == "always" and index[id(f)] <= index[id(caller)]:
            return False
        return True

    exe = [f for f in funcs if f["mod"][0] == "x"]
    # Tables of pointers, in the executable.
    for t in range(rnd.randint(0, 4)):
        sig = rnd.choice(("s0", "s0", "s1", "s2"))
        mod = "x%d" % rnd.randrange(nx)
        cands = [f for f in funcs
                 if f["sig"] == sig and f["inline"] != "always"
                 and (f["mod"] == mod or not f["static"]
                      or f["mod"] in ("lc", "lp"))]
        if not cands:
            continue
        k = rnd.randint(1, min(4, len(cands)))
        m["tables"].append({"name": "tab%d" % t, "mod": mod,
                            "kind": rnd.choice(("arr", "field")), "sig": sig,
                            "targets": [f["name"] for f in
                                        rnd.sample(cands, k)],
                            "tmods": None})
    for t in m["tables"]:
        t["tmods"] = [next(f["mod"] for f in funcs if f["name"] == nm
                           and f["sig"] == t["sig"]
                           and (f["mod"] == t["mod"] or not f["static"]
                                or f["mod"] in ("lc", "lp")))
                      for nm in t["targets"]]
    tag = [0]

    def new_tag():
        tag[0] += 1
        return tag[0]

    def cond():
        if rnd.random() < 0.4:
            mm = rnd.choice((2, 3, 5, 7))
            return [mm, rnd.randrange(mm)]
        return None

    for i, f in enumerate(funcs):
        body = f["body"]
        lib = f["mod"] in ("lc", "lp")
        nact = rnd.randint(1, 6) if i else rnd.randint(3, 9)
        for _ in range(nact):
            r = rnd.random()
            if lib:
                if r < 0.3 and f["mod"] == "lc":
                    body.append({"k": "log", "tag": new_tag(), "cond": cond()})
                elif r < 0.6 and f["sig"] == "cb":
                    body.append({"k": "cb", "cond": cond()})
                else:
                    tg = [g for g in funcs if direct_ok(f, g)]
                    if tg:
                        g = rnd.choice(tg)
                        body.append({"k": "call", "f": g["name"],
                                     "fmod": g["mod"], "cond": cond()})
                continue
            if r < 0.22:
                body.append({"k": "log", "tag": new_tag(), "cond": cond()})
            elif r < 0.5:
                fwd = [g for g in funcs if direct_ok(f, g)
                       and index[id(g)] > i and g["mod"][0] == "x"]
                back = [g for g in funcs if direct_ok(f, g)
                        and index[id(g)] < i and g["mod"][0] == "x"]
                pool = back if back and rnd.random() < 0.15 else fwd
                if pool:
                    g = rnd.choice(pool)
                    body.append({"k": "call", "f": g["name"],
                                 "fmod": g["mod"], "cond": cond()})
            elif r < 0.58:
                if f["sig"] in SIGS_CALLABLE and f["inline"] != "always":
                    body.append({"k": "self", "lim": rnd.randint(4, 80),
                                 "cond": cond()})
            elif r < 0.72:
                tabs = [t for t in m["tables"] if t["mod"] == f["mod"]]
                if tabs:
                    body.append({"k": "tab",
                                 "t": rnd.choice(tabs)["name"],
                                 "cond": cond()})
            elif r < 0.8:
                cmps = [g for g in funcs if g["sig"] == "cmp"
                        and visible(f, g) and g is not f]
                if cmps:
                    body.append({"k": rnd.choice(("qsort", "bsearch")),
                                 "f": rnd.choice(cmps)["name"],
                                 "fmod": None, "cond": cond()})
            elif r < 0.86:
                libs = [g for g in funcs if g["mod"] in ("lc", "lp")]
                if libs:
                    g = rnd.choice(libs)
                    cb = None
                    if g["sig"] == "cb" and rnd.random() < 0.8:
                        cbs = [h for h in exe if h["sig"] == "s0"
                               and h["inline"] != "always"
                               and visible(f, h)]
                        if cbs:
                            h = rnd.choice(cbs)
                            cb = [h["name"], h["mod"]]
                    body.append({"k": "lib", "f": g["name"], "fmod": g["mod"],
                                 "cb": cb, "cond": cond()})
            elif r < 0.91:
                if f["inline"] != "always" and f["sig"] != "cmp":
                    tg = [g for g in funcs if direct_ok(f, g)
                          and g["mod"][0] == "x"]
                    if tg:
                        g = rnd.choice(tg)
                        body.append({"k": "setjmp", "f": g["name"],
                                     "fmod": g["mod"]})
            elif r < 0.94:
                mm = rnd.choice((3, 5, 7, 11))
                body.append({"k": "longjmp", "cond": [mm, rnd.randrange(mm)]})
            elif r < 0.97:
                starts = [g for g in funcs if g["sig"] == "start"
                          and visible(f, g) and g is not f]
                if starts and f["sig"] == "main":
                    body.append({"k": "thread",
                                 "f": rnd.choice(starts)["name"],
                                 "fmod": "x0"})
        # A tail call at the end, of a function of the same signature.
        if (not lib and f["sig"] in SIGS_CALLABLE and rnd.random() < 0.3):
            tg = [g for g in funcs if direct_ok(f, g) and g["sig"] == f["sig"]
                  and g["mod"][0] == "x"]
            if tg:
                g = rnd.choice(tg)
                body.append({"k": "tail", "f": g["name"], "fmod": g["mod"]})
    m["rdynamic"] = rnd.random() < 0.2      # export the executable's
    # Threads, comparators and library functions that nobody uses get a
    # use from main (so that most of the program runs).
    used = referenced(m)
    for f in funcs[1:]:
        if (f["name"], f["mod"]) in used:
            continue
        if f["sig"] == "start":
            funcs[0]["body"].append({"k": "thread", "f": f["name"],
                                     "fmod": "x0"})
        elif f["sig"] == "cmp" and visible(funcs[0], f):
            funcs[0]["body"].append({"k": "qsort", "f": f["name"],
                                     "fmod": None, "cond": None})
        elif f["mod"] in ("lc", "lp"):
            funcs[0]["body"].append({"k": "lib", "f": f["name"],
                                     "fmod": f["mod"], "cb": None,
                                     "cond": None})
        elif visible(funcs[0], f) and f["sig"] in SIGS_CALLABLE:
            funcs[0]["body"].append({"k": "call", "f": f["name"],
                                     "fmod": f["mod"], "cond": None})
    # Some direct calls of the executable go in a loop, drawn from a
    # generator of their own so that the rest of the program of a seed
    # stays as it was.
    rrep = random.Random(seed * 7919 + 1)
    for f in funcs:
        for a in f["body"]:
            if (a["k"] == "call" and f["mod"][0] == "x"
                    and rrep.random() < 0.25):
                a["rep"] = rrep.choice((2, 3))
    return m


def referenced(m):
    """(name, mod) pairs of the functions the model refers to (mod None
    for references by name alone)."""
    used = set()
    for f in m["funcs"]:
        for a in f["body"]:
            if "f" in a:
                used.add((a["f"], a.get("fmod") or func_mod(m, f, a["f"])))
            if a.get("cb"):
                used.add(tuple(a["cb"]))
    for t in m["tables"]:
        for nm, md in zip(t["targets"], t["tmods"]):
            used.add((nm, md))
    return used


def func_mod(m, caller, name):
    """The module of the function NAME that CALLER sees."""
    for f in m["funcs"]:
        if f["name"] == name and f["mod"] == caller["mod"]:
            return f["mod"]
    for f in m["funcs"]:
        if f["name"] == name and not f["static"]:
            return f["mod"]
    return None


# ---- rendering -------------------------------------------------------------

def features(m):
    """What the build needs: threads, the two libraries, the TUs."""
    mods = sorted({f["mod"] for f in m["funcs"]})
    threads = any(a["k"] == "thread" for f in m["funcs"] for a in f["body"])
    return {"mods": mods, "threads": threads,
            "lc": "lc" in mods, "lp": "lp" in mods}


HEADER = """\
/* Generated by fuzzgen.py from seed %(seed)d: a random program for the
   differential tester of calling contexts (testsuite/fuzz).  */
#ifndef PROG_H
#define PROG_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <pthread.h>
#include <cce.h>
typedef unsigned (*fn_s0) (unsigned);
typedef unsigned (*fn_s1) (unsigned, unsigned);
typedef long (*fn_s2) (long);
typedef unsigned (*fn_cb) (unsigned, fn_s0);
extern __thread unsigned fuel, tick, cur_d;
extern __thread jmp_buf *jbp;
#define DMAX %(dmax)du
%(protos)s
#endif
"""


def proto(f):
    if f["sig"] == "cmp":
        return "int %s (const void *pa, const void *pb)" % f["name"]
    if f["sig"] == "start":
        return "void *%s (void *p)" % f["name"]
    if f["sig"] == "main":
        return "int main (void)"
    return "%s %s (%s)" % (RET[f["sig"]], f["name"], PARAMS[f["sig"]])


def cond_wrap(a, stmt, var="tick"):
    """STMT, under the condition of action A on VAR.  A condition modulo 7
    is declared never true (__builtin_expect_with_probability), although
    it is true every seventh time: GCC then optimizes its block for size,
    where cce's pushes go out of line."""
    c = a.get("cond")
    if not c:
        return "  %s\n" % stmt
    test = "%s %% %du == %du" % (var, c[0], c[1])
    if c[0] == 7:
        test = "__builtin_expect_with_probability (%s, 0, 1.0)" % test
    return "  if (%s)\n    %s\n" % (test, stmt)


def render_call(m, f, name, sig, extra=None):
    if sig == "cb":
        return "%s (d + 1, %s)" % (name, extra or "NULL")
    return "%s (%s)" % (name, args_for(sig))


def sig_of(m, caller, name):
    mod = func_mod(m, caller, name)
    for g in m["funcs"]:
        if g["name"] == name and g["mod"] == mod:
            return g["sig"]
    raise KeyError(name)


def render_func(m, f):
    out = []
    attrs = {"no": "__attribute__ ((noinline)) ",
             "may": "",
             "always": "inline __attribute__ ((always_inline)) "}[f["inline"]]
    storage = "static " if f["static"] else ""
    sig = f["sig"]
    has_setjmp = any(a["k"] == "setjmp" for a in f["body"])
    vol = "volatile " if has_setjmp else ""
    out.append("%s%s%s\n{\n" % (storage, attrs, proto(f)))
    lib = f["mod"] in ("lc", "lp")
    if sig == "main":
        out.append("  unsigned d = 0;\n  %sunsigned s = 0;\n" % vol)
        fail = None
    elif sig == "cmp":
        out.append("  int x = *(const int *) pa, y = *(const int *) pb;\n"
                   "  int r = (x > y) - (x < y);\n"
                   "  unsigned d = cur_d + 1;\n  %sunsigned s = 0;\n" % vol)
        fail = "r"
    elif sig == "start":
        out.append("  unsigned d = *(unsigned *) p;\n  %sunsigned s = 0;\n"
                   % vol)
        fail = "NULL"
    elif sig == "s2":
        out.append("  unsigned d = (unsigned) dl;\n  %sunsigned s = 0;\n"
                   % vol)
        fail = "0"
    else:
        out.append("  %sunsigned s = 0;\n" % vol)
        fail = "0"
    if fail is not None and not lib:
        out.append("  if (fuel == 0 || d >= DMAX)\n    return %s;\n"
                   "  fuel--;\n  tick++;\n" % fail)
    var = "d" if lib else "tick"
    for a in f["body"]:
        k = a["k"]
        if k == "log":
            out.append(cond_wrap(a, "cce_log (%du);" % a["tag"], var))
        elif k == "call":
            g = sig_of(m, f, a["f"])
            stmt = "s += (unsigned) %s;" % render_call(
                m, f, a["f"], g, "cb" if sig == "cb" else None)
            if a.get("rep"):
                stmt = "for (unsigned i = 0; i < %du; i++) %s" % (a["rep"],
                                                                stmt)
            out.append(cond_wrap(a, stmt, var))
        elif k == "self":
            # One in three is a self tail call, which GCC may make a jump
            # to the top of the function (a loop).
            if a["lim"] % 3 == 0:
                call = "return %s;" % render_call(m, f, f["name"], sig)
            else:
                call = "s += (unsigned) %s;" % render_call(m, f, f["name"],
                                                           sig)
            c = a.get("cond")
            test = "d < %du" % a["lim"]
            if c:
                test += " && tick %% %du == %du" % (c[0], c[1])
            out.append("  if (%s)\n    %s\n" % (test, call))
        elif k == "tail":
            g = sig_of(m, f, a["f"])
            out.append("  return %s;\n" % render_call(m, f, a["f"], g))
        elif k == "tab":
            t = next(t for t in m["tables"] if t["name"] == a["t"])
            sel = "%s[(tick + d) %% %du]" % (t["name"], len(t["targets"]))
            if t["kind"] == "field":
                sel += ".fn"
            out.append(cond_wrap(a, "s += (unsigned) %s (%s);"
                                 % (sel, args_for(t["sig"]))))
        elif k == "qsort":
            out.append(cond_wrap(a, "{ int v[4] = { 3, 1, (int) (tick & 3), "
                                 "0 }; cur_d = d; qsort (v, 4, sizeof v[0], "
                                 "%s); s += (unsigned) v[0]; }" % a["f"]))
        elif k == "bsearch":
            out.append(cond_wrap(a, "{ static const int v[5] = { 0, 1, 2, 3, "
                                 "4 }; int key = (int) (tick %% 6); "
                                 "const int *p; cur_d = d; p = bsearch (&key, "
                                 "v, 5, sizeof v[0], %s); s += p ? (unsigned) "
                                 "*p : 7u; }" % a["f"]))
        elif k == "setjmp":
            g = sig_of(m, f, a["f"])
            out.append("  {\n    jmp_buf jb;\n    jmp_buf *saved = jbp;\n"
                       "    if (setjmp (jb) == 0)\n      {\n"
                       "        jbp = &jb;\n"
                       "        s += (unsigned) %s;\n      }\n"
                       "    else\n      s += 1000;\n"
                       "    jbp = saved;\n  }\n"
                       % render_call(m, f, a["f"], g))
        elif k == "longjmp":
            out.append("  if (jbp && tick %% %du == %du)\n"
                       "    longjmp (*jbp, 1);\n" % tuple(a["cond"]))
        elif k == "thread":
            out.append("  {\n    pthread_t t;\n    unsigned arg = d + 1;\n"
                       "    if (pthread_create (&t, NULL, %s, &arg) == 0)\n"
                       "      pthread_join (t, NULL);\n  }\n" % a["f"])
        elif k == "lib":
            g = sig_of(m, f, a["f"])
            cb = a["cb"][0] if a.get("cb") else None
            out.append(cond_wrap(a, "s += (unsigned) %s;"
                                 % render_call(m, f, a["f"], g, cb)))
        elif k == "cb":
            out.append(cond_wrap(a, "if (cb) s += cb (d + 1);", var))
        else:
            raise ValueError(k)
    if sig == "main":
        out.append('  printf ("%u\\n", s);\n  return 0;\n}\n')
    elif sig == "cmp":
        out.append("  (void) s;\n  return r;\n}\n")
    elif sig == "start":
        out.append("  return (void *) (uintptr_t) s;\n}\n")
    else:
        out.append("  return (%s) s;\n}\n" % RET[sig])
    return "".join(out)


def render(m):
    """{file name: text} of the program of model M."""
    funcs = m["funcs"]
    ft = features(m)
    protos = "\n".join("%s;" % proto(f) for f in funcs
                       if not f["static"] and f["sig"] != "main")
    files = {"prog.h": HEADER % {"seed": m["seed"], "dmax": m["dmax"],
                                 "protos": protos}}
    for mod in ft["mods"]:
        fs = [f for f in funcs if f["mod"] == mod]
        src = ['#include <stdio.h>\n#include "prog.h"\n']
        if mod == "x0":
            src.append("__thread unsigned fuel = %du, tick, cur_d;\n"
                       "__thread jmp_buf *jbp;\n" % m["fuel"])
        for f in fs:
            if f["static"]:
                src.append("static %s;\n" % proto(f))
        for t in m["tables"]:
            if t["mod"] != mod:
                continue
            if t["kind"] == "arr":
                src.append("static const %s %s[] = { %s };\n"
                           % (FNTYPE[t["sig"]], t["name"],
                              ", ".join(t["targets"])))
            else:
                src.append("static const struct { %s fn; int k; } %s[] = "
                           "{ %s };\n"
                           % (FNTYPE[t["sig"]], t["name"],
                              ", ".join("{ %s, %d }" % (nm, j) for j, nm
                                        in enumerate(t["targets"]))))
        for f in fs:
            src.append("\n" + render_func(m, f))
        name = {"lc": "libfzc.c", "lp": "libfzp.c"}.get(mod, mod + ".c")
        files[name] = "".join(src)
    return files


def write(m, outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, text in render(m).items():
        with open(os.path.join(outdir, name), "w") as fp:
            fp.write(text)
    with open(os.path.join(outdir, "model.json"), "w") as fp:
        json.dump(m, fp, indent=1, sort_keys=True)
        fp.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: fuzzgen.py SEED OUTDIR\n")
        sys.exit(2)
    model = generate(int(sys.argv[1]))
    write(model, sys.argv[2])
    print(json.dumps(features(model)))
