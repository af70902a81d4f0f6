"""check_cli_doc.py KILN CLI_MD - docs/cli.md agrees with `kiln SUB --help`.

For every subcommand: each option its --help lists is documented in the
subcommand's section of docs/cli.md (`## kiln SUB`, up to the next `## `)
or in a section shared by several commands (any `## ` heading that is not
`## kiln ...`), by its long name or its short alias; and each option the
section's synopsis (its first fenced block) shows is one that --help lists. Prints one line per mismatch and exits 1, or prints
"cli.md matches --help" and exits 0.
"""
import re
import subprocess
import sys

OPTION = re.compile(r'--[a-z0-9][a-z0-9-]*')


def help_options(kiln, command):
    text = subprocess.run([kiln, command, '--help'], check=True,
                          capture_output=True, text=True).stdout
    options = {}
    for line in text.split('\n'):
        # Option rows start with the option ("  -o,--output TEXT ...").
        match = re.match(r'\s+(?:(-\w),)?(--[a-z0-9][a-z0-9-]*)', line)
        if match:
            options[match.group(2)] = match.group(1)
    options.pop('--help', None)
    return options


def commands(kiln):
    text = subprocess.run([kiln, '--help'], check=True, capture_output=True,
                          text=True).stdout
    section = text.split('Subcommands:', 1)[1].split('\n\n', 1)[0]
    return [m.group(1) for m in re.finditer(r'^\s+([a-z]+)\s', section, re.M)]


def doc_section(doc, command):
    match = re.search(r'^## kiln %s\b.*?(?=^## |\Z)' % command, doc, re.M | re.S)
    return match.group(0) if match else None


def shared_sections(doc):
    return ''.join(m.group(0) for m in re.finditer(
        r'^## (?!kiln ).*?(?=^## |\Z)', doc, re.M | re.S))


def main():
    kiln, doc_path = sys.argv[1], sys.argv[2]
    doc = open(doc_path).read()
    shared = shared_sections(doc)
    problems = []
    for command in commands(kiln):
        section = doc_section(doc, command)
        if section is None:
            problems.append(f'kiln {command}: no "## kiln {command}" section')
            continue
        listed = help_options(kiln, command)
        text = section + shared
        documented = set(OPTION.findall(text))
        for option, alias in sorted(listed.items()):
            by_alias = alias and re.search(r'(?<![\w-])%s\b' % alias, section)
            if option not in documented and not by_alias:
                problems.append(f'kiln {command}: {option} is in --help but not documented')
        synopsis = re.search(r'```\n(.*?)```', section, re.S)
        shown = set(OPTION.findall(synopsis.group(1))) if synopsis else set()
        for option in sorted(shown - set(listed) - {'--help'}):
            problems.append(f'kiln {command}: the synopsis shows {option}, which --help does not list')
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print('cli.md matches --help')


if __name__ == '__main__':
    main()
