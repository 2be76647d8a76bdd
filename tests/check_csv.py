#!/usr/bin/env python3
"""Reads every CSV in a folder the way a spreadsheet import does (Python's csv module,
UTF-8, RFC 4180) and checks fairaudit's conventions: a header of snake_case names, every
row as wide as the header, numbers that parse with '.' as the decimal point and no
thousands separators, and no cell that a spreadsheet would run as a formula.

A spreadsheet sees more than the first character: it trims spaces and ignores invisible
characters (zero-width space, byte-order mark) before deciding a cell is a formula, and a
spreadsheet set to ';' (or tab) as its separator, or an import set to ignore quotes, may
not honour the quotes of a ','-separated file: it splits the text at every ',', ';' and
tab and starts a new row at every line break, quoted or not. So every file is read three
ways: with ',' and with ';' as the separator honouring quotes, and split at every ',',
';', tab and line break ignoring them; every
cell is judged after stripping what a spreadsheet ignores (OWASP CSV injection guidance).

Usage: check_csv.py DIR   (exit status 0 when every file passes; problems on stderr)
"""
import csv
import pathlib
import re
import sys

SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
IGNORED = " \u00a0\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad"


def runs_as_formula(cell):
    """Whether a spreadsheet would run the cell: what it shows after the characters it
    ignores starts like a formula, and the cell is not a plain number or quoted text."""
    seen = cell.lstrip(IGNORED)
    return seen.startswith(FORMULA_START) and not NUMBER.match(seen) and not cell.startswith("'")


def check_separator(path, delimiter):
    problems = []
    with open(path, newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter=delimiter), start=1):
            for cell in row:
                if runs_as_formula(cell):
                    problems.append(
                        f"{path.name}:{number}: cell {cell!r} would run as a formula (separator {delimiter!r})"
                    )
    return problems


def check_ignoring_quotes(path):
    """The file split at every ',', ';', tab and line break, quotes ignored: each piece, less
    the quote that opened its field, is a cell a careless import shows."""
    problems = []
    text = path.read_text(encoding="utf-8")
    for number, line in enumerate(re.split(r"\r\n|\n|\r", text), start=1):
        for piece in re.split(r"[,;\t]", line):
            cell = piece[1:] if piece.startswith('"') else piece
            if runs_as_formula(cell):
                problems.append(
                    f"{path.name}: physical line {number}: {cell!r} would run as a formula (quotes ignored)"
                )
    return problems


def check(path):
    problems = check_separator(path, ",") + check_separator(path, ";") + check_ignoring_quotes(path)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return [f"{path.name}: empty"]
    header, body = rows[0], rows[1:]
    for name in header:
        if not SNAKE.match(name):
            problems.append(f"{path.name}: header '{name}' is not snake_case")
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            problems.append(f"{path.name}:{number}: {len(row)} cells, header has {len(header)}")
        for cell in row:
            if re.match(r"^-?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$", cell):
                problems.append(f"{path.name}:{number}: {cell!r} has a thousands separator")
    return problems


def main(folder):
    files = sorted(pathlib.Path(folder).glob("*.csv"))
    if not files:
        print(f"no CSV files in {folder}", file=sys.stderr)
        return 1
    problems = [p for f in files for p in check(f)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(files)} CSV files read, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
