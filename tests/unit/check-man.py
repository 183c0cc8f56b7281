#!/usr/bin/env python3
# Man pages cannot drift from the binaries: the options each page documents
# (its OPTIONS .TP entries) are exactly those the tool's table accepts.
#   TOOL.8      the global options; commands without a page of their own
#               document theirs under ".SS CMD" in COMMANDS
#   TOOL-CMD.8  the options of CMD
# A tool's table comes from `TOOL --dump-options` ("SCOPE OPTION" lines).
import os
import re
import subprocess
import sys

MAN = sys.argv[1]
BUILD = os.environ["ROCECHECK_BUILD_DIR"]
OPT = re.compile(r"(?<![\w|-])(--?[A-Za-z][A-Za-z0-9-]*)")


def unroff(line):
    line = re.sub(r"\\f[BIRP]|\\f\(..|\\&", "", line)
    return line.replace("\\-", "-").replace('"', " ")


def sections(path):
    """{(".SH name", ".SS name" or None): [tag lines of .TP entries]}"""
    out, sh, ss, tag_next = {}, None, None, False
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith(".SH"):
                sh, ss = line[3:].strip().strip('"'), None
            elif line.startswith(".SS"):
                ss = line[3:].strip().strip('"')
            elif line.startswith(".TP"):
                tag_next = True
                continue
            elif tag_next:
                out.setdefault((sh, ss), []).append(line)
            tag_next = False
    return out


def documented(tags):
    opts = set()
    for t in tags:
        if not t.startswith("."):
            continue
        # ".BR --x , -y" style tags: only the macro's arguments count.
        opts.update(OPT.findall(unroff(t.split(None, 1)[1] if " " in t else "")))
    return opts


def main():
    fails = checked = 0
    pages = sorted(p for p in os.listdir(MAN) if p.endswith(".8"))
    tables = {}
    for page in pages:
        name = page[:-2]
        tool, _, cmd = name.partition("-")
        exe = os.path.join(BUILD, "tools", tool)
        if not os.path.exists(os.path.join(os.path.dirname(MAN), "tools", tool + ".c")):
            continue  # a script (rocelab: its configured copy is in the build too)
        if not os.access(exe, os.X_OK):
            if os.path.exists(os.path.join(os.path.dirname(MAN), "tools", tool + ".c")):
                # A C tool of ours that this build left out (rocecap without libpcap).
                if os.environ.get("CI") == "true":
                    print(f"FAIL: {page}: {tool} is not built")
                    fails += 1
                else:
                    print(f"# {page}: not checked, {tool} is not built")
            continue  # else not a table-driven tool (rocelab, a script)
        if tool not in tables:
            p = subprocess.run([exe, "--dump-options"], capture_output=True, text=True, timeout=30)
            if p.returncode:
                print(f"FAIL: {page}: {tool} --dump-options: exit {p.returncode}: {p.stderr.strip()}")
                fails += 1
                continue
            table, choices = {"command": set()}, {}
            for line in p.stdout.splitlines():
                scope, opt, *arg = line.split()
                if arg and "|" in arg[0]:
                    choices[opt] = set(arg[0].split("|"))
                table.setdefault(scope, set())
                if scope == "command":
                    table["command"].add(opt)
                    table.setdefault(opt, set())
                else:
                    table[scope].add(opt)
            tables[tool] = (table, choices)
        table, choices = tables[tool]
        secs = sections(os.path.join(MAN, page))
        scopes = {}
        if cmd:
            if cmd not in table["command"]:
                print(f"FAIL: {page}: {tool} has no command '{cmd}'")
                fails += 1
                continue
            scopes[cmd] = documented(secs.get(("OPTIONS", None), []))
        else:
            scopes["global"] = documented(secs.get(("OPTIONS", None), []))
            for c in table["command"]:
                if f"{tool}-{c}.8" not in pages:
                    scopes[c] = documented(secs.get(("COMMANDS", c), []))
        for scope, doc in scopes.items():
            checked += 1
            want = table.get(scope, set())
            for o in sorted(want - doc):
                print(f"FAIL: {page}: {scope} option {o} is accepted but not documented")
                fails += 1
            for o in sorted(doc - want):
                print(f"FAIL: {page}: {scope} option {o} is documented but not accepted")
                fails += 1
        # Anywhere on the page (SYNOPSIS included): every option is one some
        # scope accepts, and a fixed set of values is the table's set.
        accepted = set().union(*(v for k, v in table.items() if k != "command"))
        lines, sh, prev = [], None, ""
        with open(os.path.join(MAN, page)) as f:
            for x in f:
                if x.startswith(".SH"):
                    sh = x[3:].strip()
                # Lines of the SYNOPSIS, and command lines of this tool
                # (not of ethtool or rdma quoted elsewhere).
                elif (x.startswith(".B") or x.startswith(".R")) and \
                        (sh == "SYNOPSIS" or unroff(x).split()[1:2] == [tool]):
                    lines.append(unroff(x))
        for line in lines:
            checked += 1
            for o in OPT.findall(line):
                if o not in accepted:
                    print(f"FAIL: {page}: '{line.strip()}': {o} is not an option of {tool}")
                    fails += 1
            for o, vals in re.findall(r"(--?[a-z-]+)\s+\[?\s*([a-z0-9-]+(?:\s*\|\s*[a-z0-9-]+)+)", line):
                got = set(v.strip() for v in vals.split("|"))
                if o in choices and got != choices[o]:
                    print(f"FAIL: {page}: {o} {'|'.join(sorted(got))}: the binary takes {'|'.join(sorted(choices[o]))}")
                    fails += 1
        # Every command of the table has a page or a COMMANDS subsection.
        if not cmd:
            for c in table["command"]:
                checked += 1
                with open(os.path.join(MAN, page)) as f:
                    text = f.read()
                if f"{tool}-{c}.8" not in pages and not re.search(rf"^\.SS \"?{c}\b", text, re.M):
                    print(f"FAIL: {page}: command {c} is not documented")
                    fails += 1
    if not tables:
        print("FAIL: no tool answered --dump-options")
        fails += 1
    print(f"{checked - fails}/{checked} man page checks passed ({', '.join(sorted(tables))})")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
