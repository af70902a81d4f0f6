"""Checks a kiln profile trace (Chrome trace-event JSON) and prints "trace ok".

Usage: check_trace.py TRACE --runs N [--kernels a,b,c] [--min-share F]
                      [--step-us U] [--cost NAME=FLOPS,READ,WRITTEN ...]

- The document is an object with a "traceEvents" list; every event has a
  string name, ph, integer pid and tid; complete ("X") events have a string
  cat and numeric ts and dur >= 0 (microseconds).
- Exactly N run events (cat "run"), args.run 0..N-1 in time order, not
  overlapping.
- Every other X event is a kernel: it lies inside the run event its args.run
  names, the kernels of a run follow one another without overlapping (a
  kernel of a loop body or branch, "loop/body_dot", lies inside its
  top-level kernel "loop" instead and is not counted in the run's sums), and
  (with --kernels) their names are exactly that list, in that order, in
  every run. Their args carry sources (a string), flops, bytes_read and
  bytes_written (integers); --cost checks those three for a kernel.
- The kernel durations of each run add up to at least --min-share of the
  run's duration (the rest is the entry's own work and the clock reads), and
  never to more than the run.
- --step-us U: the model read a clock that advances U us per read, so run r
  lasts (2K+1)U, and kernel i starts (1+2i)U after its run and lasts U.
"""
import argparse
import json
import sys

EPSILON = 1e-6  # microseconds: ts and dur are printed with 3 decimals


def fail(message):
    print("trace check failed: " + message)
    sys.exit(1)


def check_event_fields(event):
    if not isinstance(event.get("name"), str):
        fail("event without a string name: %r" % event)
    for key in ("ph", "pid", "tid"):
        if key not in event:
            fail("event %r has no %s" % (event["name"], key))
    if not isinstance(event["pid"], int) or not isinstance(event["tid"], int):
        fail("event %r: pid and tid must be integers" % event["name"])
    if event["ph"] != "X":
        return
    if not isinstance(event.get("cat"), str):
        fail("event %r has no string cat" % event["name"])
    for key in ("ts", "dur"):
        if not isinstance(event.get(key), (int, float)) or event[key] < 0:
            fail("event %r: %s must be a number >= 0" % (event["name"], key))


def check_kernel_args(kernel, costs):
    args = kernel.get("args", {})
    if not isinstance(args.get("sources"), str):
        fail("kernel %r has no sources" % kernel["name"])
    for key in ("flops", "bytes_read", "bytes_written", "run"):
        if not isinstance(args.get(key), int) or args[key] < 0:
            fail("kernel %r: args.%s must be an integer" % (kernel["name"], key))
    if kernel["name"] in costs:
        found = (args["flops"], args["bytes_read"], args["bytes_written"])
        if found != costs[kernel["name"]]:
            fail("kernel %r costs %r, expected %r"
                 % (kernel["name"], found, costs[kernel["name"]]))


def check_nested(run, kernels):
    """A kernel of a loop body or branch ("loop/body_dot") lies inside its
    top-level while or conditional ("loop"): the event is its last call in
    the run, which may come from an earlier iteration of an enclosing loop
    than its parent's last call."""
    spans = {kernel["name"]: kernel for kernel in kernels}
    for kernel in kernels:
        if "/" not in kernel["name"]:
            continue
        parent = spans.get(kernel["name"].split("/", 1)[0])
        if parent is None:
            fail("kernel %r of run %d has no parent kernel"
                 % (kernel["name"], run["args"]["run"]))
        if (kernel["ts"] < parent["ts"] - EPSILON or kernel["ts"] + kernel["dur"]
                > parent["ts"] + parent["dur"] + EPSILON):
            fail("kernel %r of run %d is not inside %r"
                 % (kernel["name"], run["args"]["run"], parent["name"]))


def check_run(run, kernels, options):
    start, end = run["ts"], run["ts"] + run["dur"]
    previous_end = start
    check_nested(run, kernels)
    names = [kernel["name"] for kernel in kernels]
    kernels = [kernel for kernel in kernels if "/" not in kernel["name"]]
    for kernel in kernels:
        if kernel["ts"] < previous_end - EPSILON:
            fail("kernel %r of run %d starts before the previous one ends"
                 % (kernel["name"], run["args"]["run"]))
        previous_end = kernel["ts"] + kernel["dur"]
        if kernel["ts"] < start - EPSILON or previous_end > end + EPSILON:
            fail("kernel %r [%f, %f] is not inside run %d [%f, %f]"
                 % (kernel["name"], kernel["ts"], previous_end,
                    run["args"]["run"], start, end))
    if options.kernels is not None and names != options.kernels:
        fail("run %d has kernels %r, expected %r"
             % (run["args"]["run"], names, options.kernels))
    total = sum(kernel["dur"] for kernel in kernels)
    if total > run["dur"] + EPSILON * len(kernels):
        fail("run %d: kernels take %f us, more than the run's %f"
             % (run["args"]["run"], total, run["dur"]))
    if total < options.min_share * run["dur"]:
        fail("run %d: kernels take %f us, under %.0f%% of the run's %f"
             % (run["args"]["run"], total, 100 * options.min_share, run["dur"]))
    if options.step_us is not None:
        step = options.step_us
        if abs(run["dur"] - (2 * len(kernels) + 1) * step) > EPSILON:
            fail("run %d lasts %f us, expected %f"
                 % (run["args"]["run"], run["dur"], (2 * len(kernels) + 1) * step))
        for i, kernel in enumerate(kernels):
            if (abs(kernel["ts"] - start - (1 + 2 * i) * step) > EPSILON
                    or abs(kernel["dur"] - step) > EPSILON):
                fail("kernel %d of run %d at +%f for %f us, expected +%f for %f"
                     % (i, run["args"]["run"], kernel["ts"] - start,
                        kernel["dur"], (1 + 2 * i) * step, step))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--kernels", type=lambda s: s.split(","))
    parser.add_argument("--min-share", type=float, default=0.0)
    parser.add_argument("--step-us", type=float)
    parser.add_argument("--cost", action="append", default=[])
    options = parser.parse_args()
    costs = {}
    for spec in options.cost:
        name, values = spec.split("=")
        costs[name] = tuple(int(v) for v in values.split(","))

    with open(options.trace) as f:
        document = json.load(f)
    if not isinstance(document, dict) or not isinstance(
            document.get("traceEvents"), list):
        fail("no traceEvents list")
    events = document["traceEvents"]
    for event in events:
        check_event_fields(event)
    complete = [e for e in events if e["ph"] == "X"]
    runs = sorted((e for e in complete if e["cat"] == "run"),
                  key=lambda e: e["ts"])
    if [r.get("args", {}).get("run") for r in runs] != list(range(options.runs)):
        fail("expected runs 0..%d in time order, found %r"
             % (options.runs - 1, [r.get("args") for r in runs]))
    for before, after in zip(runs, runs[1:]):
        if after["ts"] < before["ts"] + before["dur"] - EPSILON:
            fail("runs %d and %d overlap"
                 % (before["args"]["run"], after["args"]["run"]))
    kernels = [e for e in complete if e["cat"] != "run"]
    for kernel in kernels:
        check_kernel_args(kernel, costs)
    for run in runs:
        mine = sorted((k for k in kernels
                       if k["args"]["run"] == run["args"]["run"]),
                      key=lambda k: k["ts"])
        check_run(run, mine, options)
    seen = {k["name"] for k in kernels}
    missing = set(costs) - seen
    if missing:
        fail("no kernel named %s" % ", ".join(sorted(missing)))
    print("trace ok: %d runs, %d kernel events" % (len(runs), len(kernels)))


if __name__ == "__main__":
    main()
