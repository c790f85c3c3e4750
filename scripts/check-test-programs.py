#!/usr/bin/env python3
"""Finds every outside program the test suites and scripts start, and says where each comes from.

A fresh machine has only the toolchain, Debian's essential packages and what
`scripts/install-deps.sh` installs. A test that runs a program from anywhere else passes on a
machine used by hand and fails on a fresh one, so this check fails instead, naming the
program and the file that runs it.

Programs are found in:
- Python files under Tests/ and scripts/: the first element of a literal argument list given to
  `subprocess.run/Popen/check_output/check_call/call` (or any `.start`/`.spawn` helper), every
  `shutil.which("name")` (also through a loop over literal names), and the commands inside
  `sh -c`/`bash -c` strings;
- shell scripts under scripts/ and Fuzz/, `.ci/run` and the Makefile's recipes: the first word of each
  command.

Each is accepted when its file belongs to a Debian package named in install-deps.sh or to an
essential package (`dpkg -S`), to a Python package install-deps.sh installs (console scripts),
or to the toolchain (the Swift directory, the Python running the tests). A `pytest.mark.skipif`
on a missing program must name the program in its reason.

Usage: scripts/check-test-programs.py [--root DIR]   exit 0: all provided, 1: something is not.
"""
import argparse
import ast
import importlib.metadata
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

SUBPROCESS_CALLS = {"run", "Popen", "check_output", "check_call", "call", "start", "spawn"}
SHELL_WORDS = {
    # keywords and builtins: not programs
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in",
    "function", "return", "exit", "local", "export", "set", "unset", "shift", "trap", "cd", "echo",
    "printf", "read", "source", ".", "eval", "exec", "true", "false", "test", "[", "[[", "]]", "]",
    "declare", "readonly", "wait", "break", "continue", "command", "type", "getopts", "let", "ulimit",
    "umask", "pwd", "kill", "time", "{", "}", "(", ")", "!", ":", "mapfile", "shopt", "builtin",
}


def install_lists(root):
    """The Debian and Python packages install-deps.sh names, as it prints them itself."""
    out = subprocess.run(["bash", str(root / "scripts" / "install-deps.sh"), "--print-packages"],
                         capture_output=True, text=True, check=True).stdout
    debian, python = set(), set()
    for line in out.splitlines():
        kind, _, name = line.partition(" ")
        (debian if kind == "debian" else python).add(name.strip())
    return debian, python


def literal_strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def shell_commands(text):
    """First words of the commands in a shell text (a script or a `sh -c` string).

    A small reading of shell, enough for this repository's scripts: here-documents, comments,
    single-quoted text, arithmetic, array assignments and `case` patterns are set aside; text in
    double quotes is dropped except the command substitutions inside it.
    """
    functions = set(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)\s*\{", text, re.M))
    lines, heredoc, in_case = [], None, 0
    for raw in text.splitlines():
        if heredoc:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        marker = re.search(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?", raw)
        line = re.sub(r"'[^']*'", "''", raw)
        line = re.sub(r"(^|\s)#.*$", "", line)
        line = re.sub(r"\$\(\([^)]*\)\)", "VAR", line)
        line = re.sub(r"[A-Za-z_][A-Za-z0-9_]*\+?=\([^)]*\)", "", line)
        substitutions = []
        def keep(match):
            substitutions.extend(re.findall(r"\$\(([^()]*)\)", match.group(0)))
            return "VAR"
        line = re.sub(r'"(?:\\.|[^"\\])*"', keep, line)
        line = re.sub(r"\$\{[^}]*\}", "VAR", line)
        if re.match(r"^\s*case\b", line):
            in_case += 1
        if re.match(r"^\s*esac\b", line):
            in_case -= 1
        if in_case:
            line = re.sub(r"^\s*\(?[^()]*\)\s*", "", line) if re.match(r"^\s*\(?[\w|*.?\[\] -]+\)", line) else line
        lines.append(line)
        lines.extend(substitutions)
        if marker:
            heredoc = marker.group(1)
    found = []
    prefixes = {"!", "exec", "command", "time", "sudo", "then", "do", "else", "if", "elif", "while", "until", "in"}
    for line in lines:
        for segment in re.split(r"\|\||&&|[|;&`]|\$\(|\(|\)|\{ ", line):
            words = segment.strip().split()
            while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=", words[0]) or words[0] in prefixes):
                words = words[1:]
            if not words:
                continue
            word = words[0]
            if (word in SHELL_WORDS or word in functions or not re.match(r"^[A-Za-z][A-Za-z0-9._+-]*$", word)
                    or word.startswith("VAR")):
                continue
            found.append(word)
    return found


def python_programs(path):
    """(program, line, skip reason or None) for each outside program a Python file starts."""
    tree = ast.parse(path.read_text(), str(path))
    loops = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loops[node.target.id] = literal_strings(node.iter)
    results = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        owner = getattr(node.func.value, "id", "") if isinstance(node.func, ast.Attribute) else ""
        if name == "which" and owner == "shutil" and node.args:
            argument = node.args[0]
            if literal_strings(argument):
                results.extend((n, node.lineno) for n in literal_strings(argument))
            elif loops.get(getattr(argument, "id", "")):
                # A loop over names that stand for one another: any one of them will do.
                results.append((" | ".join(loops[argument.id]), node.lineno))
        elif name in SUBPROCESS_CALLS:
            for argument in node.args:
                if isinstance(argument, (ast.List, ast.Tuple)) and argument.elts:
                    first = argument.elts[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        results.append((first.value, node.lineno))
                        strings = [e.value for e in argument.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                        if first.value in {"sh", "bash"} and "-c" in strings[:-1]:
                            inner = strings[strings.index("-c") + 1]
                            results.extend((w, node.lineno) for w in shell_commands(inner))
                        if first.value in {"ip"} and strings[1:3] == ["netns", "exec"]:
                            pass  # the program after the namespace is checked where it is named
                    break
    # sh -c strings built in a variable (`inner = "..."` then ["sh", "-c", inner]).
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SUBPROCESS_CALLS:
            for argument in node.args:
                if isinstance(argument, ast.List) and len(argument.elts) >= 2:
                    strings = [getattr(e, "value", None) for e in argument.elts]
                    if "-c" in strings and any(s in {"sh", "bash"} for s in strings):
                        target = argument.elts[strings.index("-c") + 1] if strings.index("-c") + 1 < len(strings) else None
                        if isinstance(target, ast.Name):
                            for assign in ast.walk(tree):
                                if isinstance(assign, ast.Assign) and any(getattr(t, "id", "") == target.id for t in assign.targets):
                                    value = assign.value
                                    if isinstance(value, ast.JoinedStr):
                                        text = "".join(v.value if isinstance(v, ast.Constant) else "VAR" for v in value.values)
                                    else:
                                        text = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else ""
                                    results.extend((w, node.lineno) for w in shell_commands(text))
    return results


def skip_reasons(path):
    """(program, reason, line) for each skipif whose condition asks shutil.which."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "skipif":
            programs = [n for sub in ast.walk(node) if isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") == "which"
                        for n in literal_strings(sub.args[0] if sub.args else None)]
            reason = next((literal_strings(k.value) for k in node.keywords if k.arg == "reason"), [])
            for program in programs:
                found.append((program, " ".join(reason), node.lineno))
    return found


def dpkg_owner(path):
    candidates = {path, os.path.realpath(path)}
    for candidate in list(candidates):
        if candidate.startswith("/usr/"):
            candidates.add(candidate[len("/usr"):])
        else:
            candidates.add("/usr" + candidate)
    for candidate in candidates:
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.split(":", 1)[0].split(",")[0].strip()
    return None


def essential_packages():
    done = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Essential}\n"], capture_output=True, text=True)
    return {line.split()[0] for line in done.stdout.splitlines() if line.endswith(" yes")}


def python_scripts(packages):
    """Console scripts of the Python packages install-deps.sh installs (and their dependencies' names)."""
    scripts = {}
    for package in packages:
        try:
            distribution = importlib.metadata.distribution(package)
        except importlib.metadata.PackageNotFoundError:
            continue
        for entry in distribution.entry_points:
            if entry.group == "console_scripts":
                scripts[entry.name] = package
    return scripts


def provider(program, debian, essential, pip_scripts, toolchain_dirs):
    """Where `program` comes from on this machine, or None with the reason."""
    if " | " in program:
        answers = [provider(p, debian, essential, pip_scripts, toolchain_dirs) for p in program.split(" | ")]
        found = next((a for a in answers if a[0]), None)
        return found or (None, "; ".join(f"{p}: {a[1]}" for p, a in zip(program.split(" | "), answers)))
    if program in pip_scripts:
        return f"pip {pip_scripts[program]}", None
    path = shutil.which(program)
    if path is None:
        return None, "not on this machine"
    real = os.path.realpath(path)
    for directory in toolchain_dirs:
        if real.startswith(directory + os.sep) or path.startswith(directory + os.sep):
            return f"toolchain {directory}", None
    package = dpkg_owner(path)
    if package is None:
        return None, f"{path} belongs to no Debian package"
    base = package.split(":")[0]
    if base in debian:
        return f"debian {base}", None
    if base in essential:
        return f"debian {base} (essential)", None
    return None, f"{path} comes from Debian package {base}, which install-deps.sh does not name"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    root = args.root
    debian, python = install_lists(root)
    swift = shutil.which("swift")
    toolchain = [os.path.dirname(os.path.realpath(sys.executable)), os.path.dirname(sys.executable)]
    if swift:
        toolchain.append(os.path.dirname(os.path.realpath(swift)))
    uses = {}
    problems = []
    python_files = sorted(p for d in ("Tests", "scripts") for p in (root / d).rglob("*.py") if ".build" not in p.parts)
    for path in python_files:
        for program, line in python_programs(path):
            uses.setdefault(program, []).append(f"{path.relative_to(root)}:{line}")
        for program, reason, line in skip_reasons(path):
            if program not in reason:
                problems.append(f"{path.relative_to(root)}:{line}: skips when {program} is missing, but its reason does not say so: {reason!r}")
    shell_files = sorted([*(root / "scripts").glob("*.sh"), *(root / "Fuzz").glob("*.sh"), root / ".ci" / "run"])
    for path in shell_files:
        if path.exists():
            for program in shell_commands(path.read_text()):
                uses.setdefault(program, []).append(str(path.relative_to(root)))
    makefile = root / "Makefile"
    if makefile.exists():
        recipes = "\n".join(re.sub(r"\$[({][^)}]*[)}]", "VAR", line[1:].lstrip("@-"))
                             for line in makefile.read_text().splitlines() if line.startswith("\t"))
        for program in shell_commands(recipes):
            uses.setdefault(program, []).append("Makefile")
    essential = essential_packages()
    pip_scripts = python_scripts(python)
    ours = set(re.findall(r'executableTarget\(name: "([^"]+)"', (root / "Package.swift").read_text()))
    uses = {program: places for program, places in uses.items() if program not in ours}
    print(f"{'program':<22} {'provided by':<40} first use")
    for program in sorted(uses):
        source, why = provider(program, debian, essential, pip_scripts, toolchain)
        print(f"{program:<22} {source or 'MISSING':<40} {uses[program][0]}")
        if why:
            problems.append(f"{program} ({', '.join(sorted(set(uses[program]))[:3])}): {why}")
    for problem in problems:
        print(f"check-test-programs: {problem}", file=sys.stderr)
    print(f"{len(uses)} programs, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
