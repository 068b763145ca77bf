#!/usr/bin/env python3
"""A stand-in for Slurm's sbatch, squeue and scancel (and ssh to a login node) for tests that have no cluster.

Installed as wrapper scripts by `fake_slurm.py install DIR` (DIR/bin/{sbatch,squeue,scancel,scontrol,ssh}); the state lives
in DIR (the FAKE_SLURM_DIR the wrappers set). It runs job arrays the way the commands our Slurm backend calls show
them on Slurm 22.05:
  sbatch --parsable --array=LIST%K --output=PATTERN [options] SCRIPT   prints the job id; the tasks run with
        SLURM_ARRAY_TASK_ID and SLURM_ARRAY_JOB_ID set, at most K at a time, output to PATTERN (%a, %A);
  squeue -h -r -t all -j JOB -o '%K|%T|%r'   one line per task: PENDING (JobArrayTaskLimit), RUNNING,
        COMPLETED, FAILED (NonZeroExitCode), CANCELLED;
  scancel JOB | JOB_I   a waiting task leaves the queue without a record (as on Slurm); a running one is killed
        and shows CANCELLED;
  sbatch --hold ...   the tasks wait (JobHeldUser) until `scontrol release JOB`, so a test can cancel a waiting one;
  ssh [-o OPT]... HOST COMMAND   runs COMMAND here with sh, as a login node's shell would.
The one partition is "batch", as on scripts/slurm-cluster.sh's cluster; another, or DIR/refuse, makes sbatch refuse. Every call is logged to DIR/calls.log.
"""
import fcntl
import os
import re
import shlex
import signal
import subprocess
import sys
import time

STATE = os.environ.get("FAKE_SLURM_DIR", "")


def log_call(argv):
    with open(os.path.join(STATE, "calls.log"), "a") as f:
        f.write(shlex.join(argv) + "\n")


class Locked:
    """All state changes happen under one lock file, so scancel and the runner never race."""

    def __enter__(self):
        self.f = open(os.path.join(STATE, "lock"), "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def task_file(job, k):
    return os.path.join(STATE, "jobs", job, str(k))


def read_task(job, k):
    try:
        with open(task_file(job, k)) as f:
            state, reason, pid = f.read().strip().split("|")
            return state, reason, int(pid)
    except FileNotFoundError:
        return None


def write_task(job, k, state, reason="None", pid=0):
    with open(task_file(job, k), "w") as f:
        f.write(f"{state}|{reason}|{pid}\n")


def tasks_of(job):
    d = os.path.join(STATE, "jobs", job)
    return sorted(int(k) for k in os.listdir(d)) if os.path.isdir(d) else []


def sbatch(args):
    array, output, script, held, refused = None, None, None, False, False
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a.startswith("--array="):
            array = a[len("--array="):]
        elif a.startswith("--output="):
            output = a[len("--output="):]
        elif a == "--hold":
            held = True
        elif a.startswith("--partition=") and a != "--partition=batch":
            refused = True
        elif a.startswith("--"):
            continue  # --parsable, --job-name=..., --partition=...: accepted
        else:
            script = a
    m = re.fullmatch(r"([0-9,]+)%([0-9]+)", array or "")
    if not m or not script or not os.path.isfile(script):
        print("sbatch: error: Batch job submission failed: Invalid job array specification", file=sys.stderr)
        return 1
    if refused or os.path.exists(os.path.join(STATE, "refuse")):
        print("sbatch: error: Batch job submission failed: Invalid partition name specified", file=sys.stderr)
        return 1
    with Locked():
        counter = os.path.join(STATE, "next_job")
        job = open(counter).read().strip() if os.path.exists(counter) else "100"
        open(counter, "w").write(str(int(job) + 1))
        os.makedirs(os.path.join(STATE, "jobs", job))
        for k in m.group(1).split(","):
            write_task(job, int(k), "PENDING", "JobHeldUser" if held else "JobArrayTaskLimit")
    subprocess.Popen([sys.executable, os.path.abspath(__file__), "run", job, m.group(2), script, output or "slurm-%A_%a.out"],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     env=dict(os.environ, FAKE_SLURM_DIR=STATE))
    print(job)
    return 0


def run(job, max_running, script, output):
    running = {}  # k -> Popen
    while True:
        with Locked():
            for k, p in list(running.items()):
                rc = p.poll()
                if rc is None:
                    continue
                del running[k]
                t = read_task(job, k)
                if t and t[0] == "RUNNING":
                    write_task(job, k, "COMPLETED" if rc == 0 else "FAILED", "None" if rc == 0 else "NonZeroExitCode")
            waiting = [k for k in tasks_of(job) if (read_task(job, k) or ("",))[0] == "PENDING"]
            if not waiting and not running:
                return 0
            waiting = [k for k in waiting if read_task(job, k)[1] != "JobHeldUser"]
            while waiting and len(running) < int(max_running):
                k = waiting.pop(0)
                path = output.replace("%A", job).replace("%a", str(k))
                with open(path, "w") as out:
                    p = subprocess.Popen(["sh", script], stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                         env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(k), SLURM_ARRAY_JOB_ID=job, SLURM_JOB_ID=job))
                running[k] = p
                write_task(job, k, "RUNNING", "None", p.pid)
        time.sleep(0.1)


def squeue(args):
    if "-o" not in args or args[args.index("-o") + 1] != "%K|%T|%r" or "-j" not in args:
        print("squeue: the stand-in knows only -h -r -t all -j JOB -o '%K|%T|%r'", file=sys.stderr)
        return 1
    job = args[args.index("-j") + 1]
    with Locked():
        for k in tasks_of(job):
            t = read_task(job, k)
            if t:
                print(f"{k}|{t[0]}|{t[1]}")
    return 0


def scancel(args):
    if len(args) != 1:
        print("scancel: the stand-in takes one JOB or JOB_TASK", file=sys.stderr)
        return 1
    job, _, which = args[0].partition("_")
    if not os.path.isdir(os.path.join(STATE, "jobs", job)):
        print(f"scancel: error: Invalid job id {args[0]}", file=sys.stderr)
        return 1
    with Locked():
        for k in tasks_of(job):
            if which and str(k) != which:
                continue
            t = read_task(job, k)
            if t[0] == "PENDING":
                os.remove(task_file(job, k))  # Slurm keeps no record of a task cancelled while it waited
            elif t[0] == "RUNNING":
                try:
                    os.killpg(t[2], signal.SIGTERM)
                except ProcessLookupError:
                    pass
                write_task(job, k, "CANCELLED", "None")
    return 0


def scontrol(args):
    if len(args) != 2 or args[0] != "release":
        print("scontrol: the stand-in knows only release JOB", file=sys.stderr)
        return 1
    with Locked():
        for k in tasks_of(args[1]):
            t = read_task(args[1], k)
            if t[0] == "PENDING":
                write_task(args[1], k, "PENDING", "JobArrayTaskLimit")
    return 0


def ssh(args):
    rest = list(args)
    while rest and rest[0].startswith("-"):
        opt = rest.pop(0)
        if opt == "-o" and rest:
            rest.pop(0)
    if len(rest) < 2:
        print("ssh: usage: ssh [-o OPT]... HOST COMMAND", file=sys.stderr)
        return 255
    with open(os.path.join(STATE, "ssh_hosts.log"), "a") as f:
        f.write(rest[0] + "\n")
    return subprocess.call(["sh", "-c", " ".join(rest[1:])])


def install(state_dir):
    state_dir = os.path.abspath(state_dir)
    os.makedirs(os.path.join(state_dir, "bin"), exist_ok=True)
    for tool in ("sbatch", "squeue", "scancel", "scontrol", "ssh"):
        path = os.path.join(state_dir, "bin", tool)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\nFAKE_SLURM_DIR={shlex.quote(state_dir)} exec {shlex.quote(sys.executable)} "
                    f"{shlex.quote(os.path.abspath(__file__))} {tool} \"$@\"\n")
        os.chmod(path, 0o755)
    print(os.path.join(state_dir, "bin"))
    return 0


def main():
    tool, args = sys.argv[1], sys.argv[2:]
    if tool == "install":
        return install(args[0])
    if tool == "run":
        return run(*args)
    log_call([tool] + args)
    return {"sbatch": sbatch, "squeue": squeue, "scancel": scancel, "scontrol": scontrol, "ssh": ssh}[tool](args)


if __name__ == "__main__":
    sys.exit(main())
