# python-workload.py -- deterministic CPU-bound workload for the
# python3.11 corpus entry (run-time ratio and validation).  Pure Python,
# no imports: dicts and strings, recursion, classes with special methods,
# generators, closures, exceptions, sorting with key functions and
# comparison methods, list and dict comprehensions, a small interpreter.
# Each part prints one line with a checksum, so the outputs of two builds
# can be compared byte for byte.
#
# Usage: python -S python-workload.py [ROUNDS]
# ROUNDS (default 40) is how many times every part runs; 1 is a short run
# for validating contexts under gdb.  Nothing depends on string hashes or addresses: no
# iteration over sets or over dicts whose order is not insertion order.

import sys

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 40


def lcg(seed):
    """An endless stream of pseudo-random numbers (Park-Miller)."""
    while True:
        seed = seed * 16807 % 2147483647
        yield seed


def part_words(n):
    """Word counts over generated text: str methods, dict get/set."""
    rnd = lcg(42)
    letters = "etaoinshrdlucmfwypvbgkqjxz"
    vocab = []
    for _ in range(500):
        k = 2 + next(rnd) % 8
        vocab.append("".join(letters[(next(rnd) % 26) * (next(rnd) % 26) // 26]
                              for _ in range(k)))
    counts = {}
    lines = []
    for i in range(n):
        words = [vocab[(next(rnd) % 500) * (next(rnd) % 500) // 500] for _ in range(12)]
        line = " ".join(words).capitalize() + "."
        lines.append(line)
        for w in line.lower().rstrip(".").split():
            counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    text = "\n".join(lines)
    return "%d words, %d distinct, top %s, %d upper, %d 'the'" % (
        sum(counts.values()), len(counts), ",".join(w for w, _ in top),
        sum(1 for c in text if c.isupper()), text.count("the"))


def part_recursion(n):
    """Plain and mutual recursion, memoization in a dict."""
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    def is_even(k):
        return True if k == 0 else is_odd(k - 1)

    def is_odd(k):
        return False if k == 0 else is_even(k - 1)

    memo = {}

    def partitions(total, largest):
        if total == 0:
            return 1
        if total < 0 or largest == 0:
            return 0
        key = (total, largest)
        if key not in memo:
            memo[key] = partitions(total - largest, largest) + partitions(total, largest - 1)
        return memo[key]

    def ackermann(m, k):
        if m == 0:
            return k + 1
        if k == 0:
            return ackermann(m - 1, 1)
        return ackermann(m - 1, ackermann(m, k - 1))

    r = [fib(18 + n // 20) for _ in range(2)]
    return "fib %d, even %s, partitions %d, ackermann %d" % (
        r[0], is_even(300 + n), partitions(60 + n, 60 + n), ackermann(2, 200))


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __eq__(self, o):
        return self.x == o.x and self.y == o.y

    def __hash__(self):
        return hash((self.x, self.y))

    def __lt__(self, o):
        return (self.x, self.y) < (o.x, o.y)

    def __repr__(self):
        return "Vec(%d,%d)" % (self.x, self.y)


class Shape:
    def area(self):
        raise NotImplementedError

    def describe(self):
        return "%s:%d" % (type(self).__name__, self.area())


class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Square(Rect):
    def __init__(self, s):
        super().__init__(s, s)


class Tri(Shape):
    def __init__(self, b, h):
        self.b, self.h = b, h

    def area(self):
        return self.b * self.h // 2

    @property
    def kind(self):
        return "flat" if self.h < self.b else "tall"


def part_objects(n):
    """Classes: special methods, inheritance, super, properties, sorting
    with __lt__, dicts keyed by objects with __hash__."""
    rnd = lcg(7)
    vs = [Vec(next(rnd) % 1000, next(rnd) % 1000) for _ in range(n * 20)]
    acc = Vec(0, 0)
    for v in vs:
        acc = acc + v * 2
    vs.sort()
    seen = {}
    for v in vs:
        seen[v] = seen.get(v, 0) + 1
    shapes = []
    for i in range(n * 20):
        k = next(rnd) % 3
        a, b = 1 + next(rnd) % 50, 1 + next(rnd) % 50
        shapes.append(Rect(a, b) if k == 0 else Square(a) if k == 1 else Tri(a, b))
    total = sum(s.area() for s in shapes)
    kinds = [s.kind for s in shapes if isinstance(s, Tri)]
    desc = max(shapes, key=lambda s: (s.area(), s.describe())).describe()
    return "acc %r, first %r, last %r, distinct %d, area %d, tall %d, max %s" % (
        acc, vs[0], vs[-1], len(seen), total, kinds.count("tall"), desc)


def part_generators(n):
    """Generators, closures, comprehensions, exceptions as control flow."""
    def primes():
        found = []
        k = 2
        while True:
            if all(k % p for p in found if p * p <= k):
                found.append(k)
                yield k
            k += 1

    def take(g, k):
        out = []
        for x in g:
            if len(out) == k:
                break
            out.append(x)
        return out

    def counter():
        c = 0

        def inc(by=1):
            nonlocal c
            c += by
            return c
        return inc

    ps = take(primes(), 300 + n * 20)
    inc = counter()
    squares = {p: p * p for p in ps if p % 4 == 1}
    evens = [inc(2) for _ in range(n * 100)]
    caught = 0
    for i in range(n * 200):
        try:
            if i % 3 == 0:
                raise KeyError(i)
            elif i % 3 == 1:
                {}[i]
            else:
                int("x%d" % i)
        except KeyError:
            caught += 1
        except ValueError:
            caught += 2
    chained = sum(x for x in (y * 3 for y in range(n * 500)) if x % 7)
    return "primes %d last %d, squares %d, counter %d, caught %d, chained %d" % (
        len(ps), ps[-1], len(squares), evens[-1], caught, chained)


def part_interp(n):
    """A tiny stack-machine interpreter: tuples, dispatch through a dict
    of bound methods, string formatting."""
    class Machine:
        def __init__(self):
            self.stack = []
            self.ops = {"push": self.push, "add": self.add, "mul": self.mul,
                        "dup": self.dup, "swap": self.swap, "mod": self.mod}

        def push(self, v):
            self.stack.append(v)

        def add(self, _):
            b, a = self.stack.pop(), self.stack.pop()
            self.stack.append(a + b)

        def mul(self, _):
            b, a = self.stack.pop(), self.stack.pop()
            self.stack.append(a * b)

        def mod(self, _):
            b, a = self.stack.pop(), self.stack.pop()
            self.stack.append(a % b)

        def dup(self, _):
            self.stack.append(self.stack[-1])

        def swap(self, _):
            self.stack[-1], self.stack[-2] = self.stack[-2], self.stack[-1]

        def run(self, prog):
            for op, arg in prog:
                self.ops[op](arg)
            return self.stack[-1]

    prog = []
    for i in range(1, 50):
        prog += [("push", i), ("dup", None), ("mul", None), ("add", None),
                 ("push", 1000003), ("mod", None), ("push", 3), ("swap", None),
                 ("mul", None)] if prog else [("push", i)]
    results = []
    for k in range(n * 40):
        m = Machine()
        m.push(k)
        results.append(m.run(prog))
    text = ";".join("%x" % r for r in results)
    return "runs %d, sum %d, text %d chars" % (len(results), sum(results), len(text))


def main():
    parts = [("words", part_words, 1000), ("recursion", part_recursion, 10),
             ("objects", part_objects, 100), ("generators", part_generators, 10),
             ("interp", part_interp, 5)]
    first = None
    same = 0
    for _ in range(ROUNDS):
        results = [fn(size) for _, fn, size in parts]
        if first is None:
            first = results
        same += results == first
    for (name, _, _), r in zip(parts, first):
        print("%s: %s" % (name, r))
    print("rounds: %d of %d the same" % (same, ROUNDS))


main()
