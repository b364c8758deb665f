#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mutation-sample - do the tests notice a deliberate bug?

Each mutation in scripts/mutations.list (a file, an exact snippet of it,
its replacement and the tests that cover it) is applied alone to a scratch
copy of this built tree, which is rebuilt; then its covering tests run.  A
mutation is killed when one of them fails (or hangs), survives when all
pass.  Prints one line per mutation, the survivors with the reason the
list gives, and the kill ratio.  The working tree is never touched.

usage: scripts/mutation-sample.py [-k] [-j N] [NAME...]
  NAME  run only these mutations (default: all)
  -k    keep the scratch copy (its path is printed)
Exit: 0 when the ratio is at least 90 % and every mutation applied and
built, 1 otherwise, 2 on a usage error or a tree that is not built.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

GOAL = 0.90
TEST_TIMEOUT = 600	# seconds per test: longer counts as a hang (killed)


def die(msg, code=2):
    print("mutation-sample: " + msg, file=sys.stderr)
    sys.exit(code)


class Mutation:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.file, self.tests, self.build, self.env = None, [], [], {}
        self.old, self.new, self.survives = [], [], None


def parse_list(path):
    """The list: blocks of '@ NAME', 'file F', 'test T...', optional
    'build TARGET...', 'env VAR=VALUE...' and 'survives REASON', then
    '- ' lines (the
    original) and '+ ' lines (the replacement, none to delete)."""
    muts, m = [], None
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (path, n)
            if line.startswith("@ "):
                m = Mutation(line[2:].strip(), where)
                muts.append(m)
                continue
            if not line.strip() or line.startswith("#"):
                continue
            if m is None:
                die(where + ": text before the first '@ NAME'")
            if line.startswith("- ") or line == "-":
                m.old.append(line[2:])
            elif line.startswith("+ ") or line == "+":
                m.new.append(line[2:])
            else:
                key, _, val = line.partition(" ")
                if key == "file":
                    m.file = val.strip()
                elif key == "test":
                    m.tests += val.split()
                elif key == "build":
                    m.build += val.split()
                elif key == "env":
                    for kv in val.split():
                        k, eq, v = kv.partition("=")
                        if not eq:
                            die(where + ": env wants VAR=VALUE")
                        m.env[k] = v
                elif key == "survives":
                    m.survives = val.strip()
                else:
                    die(where + ": unknown line '%s'" % line[:40])
    names = set()
    for m in muts:
        if not m.file or not m.tests or not m.old:
            die(m.line + ": %s needs file, test and '- ' lines" % m.name)
        if m.name in names:
            die(m.line + ": %s listed twice" % m.name)
        names.add(m.name)
    return muts


def run(cmd, cwd, log, timeout=None, env=None):
    """Run @cmd with its output appended to @log; its exit status, or
    None when it ran past @timeout."""
    with open(log, "ab") as out:
        out.write(("$ %s\n" % " ".join(cmd)).encode())
        out.flush()
        try:
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out,
                                 stderr=subprocess.STDOUT, env=env,
                                 start_new_session=True)
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            return None


def is_program(test):
    return not test.endswith((".sh", ".py"))


def run_tests(tree, m, jobs, log):
    """'fail', 'hang', 'skip' (every test skipped) or 'pass'."""
    tests = os.path.join(tree, "tests")
    progs = [t for t in m.tests if is_program(t)] + m.build
    if progs and run(["make", "-j%d" % jobs] + progs, tests, log) != 0:
        return "build"
    env = dict(os.environ, srcdir=".", **m.env)
    skipped = 0
    for t in m.tests:
        rc = run(["./" + t], tests, log, TEST_TIMEOUT, env)
        if rc is None:
            return "hang"
        if rc == 77:
            skipped += 1
        elif rc != 0:
            return "fail"
    return "skip" if skipped == len(m.tests) else "pass"


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("-k", action="store_true")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()

    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    muts = parse_list(os.path.join(top, "scripts", "mutations.list"))
    if a.names:
        unknown = set(a.names) - set(m.name for m in muts)
        if unknown:
            die("no such mutation: " + " ".join(sorted(unknown)))
        muts = [m for m in muts if m.name in a.names]
    if not os.path.exists(os.path.join(top, "config.status")):
        die("build the tree in place first (scripts/build.sh)")

    scratch = tempfile.mkdtemp(prefix="nfswb-mutation.", dir="/var/tmp")
    tree = os.path.join(scratch, "tree")
    log = os.path.join(scratch, "log")
    print("mutation-sample: %d mutations; scratch copy %s, log %s" %
          (len(muts), tree, log), flush=True)
    # The built tree without git: make then rebuilds only what changes.
    shutil.copytree(top, tree, symlinks=True,
                    ignore=shutil.ignore_patterns(".git"))
    def fatal(msg):
        # Keep the log to read, not the copy.
        shutil.rmtree(tree, ignore_errors=True)
        die(msg + ": see " + log, 1)

    if run(["make", "-j%d" % a.j], tree, log) != 0:
        fatal("the unmutated copy does not build")

    # Unmutated, every covering test must pass (or skip): a test that
    # fails already would "kill" every mutation it covers.
    base = Mutation("baseline", "")
    for m in muts:
        base.tests += [t for t in m.tests if t not in base.tests]
        base.build += [t for t in m.build if t not in base.build]
    for t in base.tests:
        one = Mutation("baseline", "")
        one.tests, one.build = [t], base.build
        for m in muts:
            if t in m.tests:
                one.env.update(m.env)
        r = run_tests(tree, one, a.j, log)
        if r not in ("pass", "skip"):
            fatal("%s fails unmutated (%s)" % (t, r))

    killed, survived, errors = [], [], []
    for m in muts:
        path = os.path.join(tree, m.file)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            errors.append((m, str(e)))
            print("ERROR    %-34s %s" % (m.name, e), flush=True)
            continue
        old, new = "\n".join(m.old), "\n".join(m.new)
        if text.count(old) != 1:
            why = "snippet found %d times in %s" % (text.count(old), m.file)
            errors.append((m, why))
            print("ERROR    %-34s %s" % (m.name, why), flush=True)
            continue
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        with open(log, "a") as f:
            f.write("\n=== %s (%s)\n" % (m.name, m.file))
        # Programs in tests/ relink against lib/ themselves; scripts run
        # the daemon and the tools, which the top-level make relinks.
        where = tree
        if m.file.startswith("lib/") and all(map(is_program, m.tests)):
            where = os.path.join(tree, "lib")
        if run(["make", "-j%d" % a.j], where, log) != 0:
            r = "build"
        else:
            r = run_tests(tree, m, a.j, log)
        with open(path, "w") as f:
            f.write(text)
        if r == "build":
            errors.append((m, "does not build"))
            print("ERROR    %-34s does not build: see %s" % (m.name, log),
                  flush=True)
        elif r in ("fail", "hang"):
            killed.append(m)
            # A kill the list did not expect may be a flaky test's.
            print("killed   %-34s %s%s%s" % (m.name, " ".join(m.tests),
                                           " (hang)" if r == "hang" else "",
                                           " (listed as surviving: flaky?)"
                                           if m.survives else ""),
                  flush=True)
        else:
            survived.append(m)
            print("SURVIVED %-34s %s%s" % (m.name, " ".join(m.tests),
                                         " (all skipped)" if r == "skip"
                                         else ""), flush=True)
    # Leave the copy as it was built, for the next run of the same tree.
    run(["make", "-j%d" % a.j], tree, log)

    n = len(killed) + len(survived)
    ratio = len(killed) / n if n else 0.0
    if survived:
        print("\nsurvivors:")
        for m in survived:
            print("  %s (%s): %s" % (m.name, m.file, m.survives or
                                     "no reason listed: a test is missing"))
    for m, why in errors:
        print("error: %s (%s): %s" % (m.name, m.line, why))
    print("\nkilled %d of %d mutations: %.1f %% (goal %d %%)%s" %
          (len(killed), n, 100 * ratio, 100 * GOAL,
           "; %d not applied" % len(errors) if errors else ""))
    if a.k:
        print("scratch copy kept: " + scratch)
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if ratio >= GOAL and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
