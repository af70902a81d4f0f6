# check_symbols.py MANIFEST OBJECT: every undefined symbol of OBJECT (llvm-nm -u)
# must be listed in the manifest's required_symbols (Mach-O's leading '_' aside),
# and the manifest's entry symbol must be defined in OBJECT.
import json
import subprocess
import sys

manifest = json.load(open(sys.argv[1]))
obj = sys.argv[2]
macho = open(obj, "rb").read(4) == b"\xcf\xfa\xed\xfe"


def names(args):
    out = subprocess.run(["llvm-nm"] + args + [obj], check=True, capture_output=True,
                         text=True).stdout
    result = [line.split()[-1] for line in out.splitlines() if line.strip()]
    return [n[1:] if macho and n.startswith("_") else n for n in result]


undefined = set(names(["-u"]))
extra = undefined - set(manifest["required_symbols"])
if extra:
    sys.exit("undefined symbols not in required_symbols: %s" % sorted(extra))
if manifest["entry"] not in names(["--defined-only", "--extern-only"]):
    sys.exit("entry symbol %s not defined" % manifest["entry"])
print("symbols ok: %d undefined, entry %s" % (len(undefined), manifest["entry"]))
