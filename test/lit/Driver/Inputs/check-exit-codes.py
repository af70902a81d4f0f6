"""Runs kiln with good and bad arguments and checks each exit status."""
import subprocess
import sys

kiln, driver_dir = sys.argv[1], sys.argv[2]
cases = [
    (0, ["--version"]),
    (0, ["--help"]),
    (0, ["opt", driver_dir + "/opt.hlo", "--passes=verify"]),
    (1, []),
    (1, ["frobnicate"]),
    (1, ["opt", "--no-such-flag"]),
    (1, ["opt", driver_dir + "/no-such-file.hlo"]),
    (1, ["opt", driver_dir + "/opt.hlo", "--passes=bogus"]),
    (1, ["opt", driver_dir + "/Inputs/syntax-error.hlo"]),
    (1, ["run"]),
    (1, ["run", driver_dir + "/Inputs/add.hlo", "--reference"]),
    (1, ["run", driver_dir + "/Inputs/add.hlo", "--input", "x"]),
]
failed = False
for expected, args in cases:
    result = subprocess.run([kiln] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    if result.returncode != expected:
        print(f"kiln {' '.join(args)}: exit {result.returncode}, "
              f"expected {expected}")
        failed = True
sys.exit(1 if failed else 0)
