"""`python pip-progress.py PIP ARGS...`: runs `PIP install ARGS...` for ensure-venv.mjs.

An install takes minutes (the local AWS about 4.5 on a first run, LocalStack up to 9), so on a
terminal it shows one short line on stderr (under the line ensure-venv.mjs printed, which says
what is installed), rewritten in place as pip collects packages; into a pipe or
a file it prints nothing, as `pip --quiet` did. Either way, when pip fails, its whole output is
printed, which --quiet used to hide.
"""
import subprocess
import sys

CLEAR_LINE = "\r\x1b[K"


def packages(count: int) -> str:
    return f"{count} package" if count == 1 else f"{count} packages"


def main() -> int:
    pip, *args = sys.argv[1:]
    terminal = sys.stderr.isatty()
    pip_run = subprocess.Popen(
        [pip, "install", "--disable-pip-version-check", "--progress-bar", "off", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = []
    collected = 0
    for line in pip_run.stdout:
        output.append(line)
        if not terminal:
            continue
        if line.startswith("Collecting "):
            collected += 1
            package = line.split()[1]
            sys.stderr.write(f"{CLEAR_LINE}pip: {packages(collected)} collected ({package})")
        elif line.startswith("Installing collected packages"):
            sys.stderr.write(f"{CLEAR_LINE}pip: installing {packages(collected)}...")
        sys.stderr.flush()
    code = pip_run.wait()
    if terminal:
        sys.stderr.write(CLEAR_LINE)
    if code != 0:
        sys.stderr.write("".join(output))
    return code


if __name__ == "__main__":
    sys.exit(main())
