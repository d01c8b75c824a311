#!/usr/bin/env python3
"""Event simulation of Megatron-LM's 1F1B and interleaved 1F1B pipeline schedules, as a check of
ridge's closed form (docs/parallel.md, "Step time" and "Check: the ten Megatron-LM runs").

Usage:
  pipeline_sim.py --pp P --virtual-stages V --microbatches M --fwd F --bwd B [--p2p X]
                  [--cv C --reps R --seed S]
  pipeline_sim.py --ridge build/cli/ridge -- PREDICT-CLUSTER-ARGS...   (ridge's own figures)

Each of the P devices runs Megatron's program for its rank (forward_backward_pipelining_without /
with_interleaving of Megatron-LM 2021): warm-up forwards ((P - rank - 1) for 1F1B;
(P - rank - 1) * 2 + (V - 1) * P chunks interleaved), the steady 1F1B pairs, the cool-down
backwards; microbatches go through a device's chunks in groups of P. After every chunk the device
exchanges activations and gradients with its neighbours in one batched, blocking send/receive
(torch.distributed.batch_isend_irecv, then wait): an exchange ends when every send and receive in
it has met its partner's, plus X seconds of transfer. The last device's chunk k feeds the first
device's chunk k + 1 (a ring). F and B are one chunk's forward and backward times (a stage's
microbatch divided by V; with full recomputation B includes the forward run again).

Printed: the simulated step (the last device's end), the ideal step without communication,
M V (F + B) + (P - 1)(F + B), and ridge's closed form for the same inputs,
M V (F + B) + (P - 1)(F + B) + 2 (V M + P - 1) X. With --cv C every chunk time is drawn from
N(t, (C t)^2) (clipped at 0.2 t), independently, and the mean over R draws is printed: how much
timing noise the schedule's coupling turns into a longer step (no noise: the two closed forms).

With --ridge, `ridge predict --cluster ... --format json` gives F = stage_forward_s / V,
B = stage_backward_s / V, X = p2p_s, M = microbatches, P and V, and ridge's own
compute + bubble + pp comm is printed beside the simulation (the gradient accumulations, which ridge
spreads over the microbatches, are left out of both).
"""
import argparse
import json
import random
import subprocess
import sys


def chunk_of(k, P, V, forward):
    """The model chunk a device runs for its k-th forward (or backward) of a step."""
    c = (k % (P * V)) // P
    return c if forward else V - 1 - c


def program(rank, P, V, m):
    """The device's actions: ("F" | "B", chunk) and ("X", sends, receives), each (peer, direction)."""
    total = m * V
    first, last = rank == 0, rank == P - 1
    nxt, prv = (rank + 1) % P, (rank - 1) % P
    if V == 1:
        warm = min(P - rank - 1, m)
    else:
        warm = total if m == P else min((P - rank - 1) * 2 + (V - 1) * P, total)
    rest = total - warm

    def sends_fwd(k):
        return not (last and chunk_of(k, P, V, True) == V - 1)

    def sends_bwd(k):
        return not (first and chunk_of(k, P, V, False) == 0)

    def needs_fwd(k):
        return not (first and chunk_of(k, P, V, True) == 0)

    def needs_bwd(k):
        return not (last and chunk_of(k, P, V, False) == V - 1)

    acts = []
    if V == 1:  # forward_backward_pipelining_without_interleaving: one blocking exchange per direction
        def x(sends, recvs):
            if sends or recvs:
                acts.append(("X", sends, recvs))
        fwd_in = [] if first else [(prv, "f")]
        fwd_out = [] if last else [(nxt, "f")]
        bwd_in = [] if last else [(nxt, "b")]
        bwd_out = [] if first else [(prv, "b")]
        for _ in range(warm):
            x([], fwd_in)
            acts.append(("F", 0))
            x(fwd_out, [])
        if rest > 0:
            x([], fwd_in)
        for i in range(rest):
            acts.append(("F", 0))
            x(fwd_out, bwd_in)  # send_forward_recv_backward
            acts.append(("B", 0))
            x(bwd_out, [] if i == rest - 1 else fwd_in)  # send_backward(_recv_forward)
        for _ in range(warm):
            x([], bwd_in)
            acts.append(("B", 0))
            x(bwd_out, [])
        return acts
    if needs_fwd(0):
        acts.append(("X", [], [(prv, "f")]))
    for k in range(warm):
        acts.append(("F", chunk_of(k, P, V, True)))
        sends = [(nxt, "f")] if sends_fwd(k) else []
        recvs = [(prv, "f")] if k + 1 < total and needs_fwd(k + 1) else []
        if k == warm - 1 and rest > 0 and needs_bwd(0):
            recvs.append((nxt, "b"))
        if sends or recvs:
            acts.append(("X", sends, recvs))
    if rest == 0 and needs_bwd(0):
        acts.append(("X", [], [(nxt, "b")]))
    for k in range(rest):
        fk = k + warm
        acts.append(("F", chunk_of(fk, P, V, True)))
        acts.append(("B", chunk_of(k, P, V, False)))
        sends = ([(nxt, "f")] if sends_fwd(fk) else []) + ([(prv, "b")] if sends_bwd(k) else [])
        recvs = ([(prv, "f")] if fk + 1 < total and needs_fwd(fk + 1) else []) + \
                ([(nxt, "b")] if k + 1 < total and needs_bwd(k + 1) else [])
        if sends or recvs:
            acts.append(("X", sends, recvs))
    for k in range(rest, total):
        acts.append(("B", chunk_of(k, P, V, False)))
        sends = [(prv, "b")] if sends_bwd(k) else []
        recvs = [(nxt, "b")] if k + 1 < total and needs_bwd(k + 1) else []
        if sends or recvs:
            acts.append(("X", sends, recvs))
    return acts


def simulate(P, V, m, f, b, x, cv=0.0, rng=None):
    """The step time of the schedule: every device's program, exchanges as rendezvous."""
    def draw(t):
        return t if cv <= 0 else t * max(0.2, rng.gauss(1.0, cv))

    progs = [program(r, P, V, m) for r in range(P)]
    pc, t = [0] * P, [0.0] * P
    count, posted_send, posted_recv, pending = {}, {}, {}, [None] * P
    while True:
        moved = False
        for r in range(P):
            while pc[r] < len(progs[r]):
                a = progs[r][pc[r]]
                if a[0] in ("F", "B"):
                    t[r] += draw(f if a[0] == "F" else b)
                    pc[r] += 1
                    moved = True
                    continue
                if pending[r] is None:
                    keys = []
                    for peer, d in a[1]:
                        i = count.get((r, peer, d), 0)
                        count[(r, peer, d)] = i + 1
                        posted_send[(r, peer, d, i)] = t[r]
                        keys.append((r, peer, d, i))
                    for peer, d in a[2]:
                        i = count.get((peer, r, d, "r"), 0)
                        count[(peer, r, d, "r")] = i + 1
                        posted_recv[(peer, r, d, i)] = t[r]
                        keys.append((peer, r, d, i))
                    pending[r] = keys
                keys = pending[r]
                if not all(k in posted_send and k in posted_recv for k in keys):
                    break
                t[r] = max([t[r]] + [max(posted_send[k], posted_recv[k]) + x for k in keys])
                pending[r] = None
                pc[r] += 1
                moved = True
        if all(pc[r] == len(progs[r]) for r in range(P)):
            return max(t)
        if not moved:
            raise RuntimeError(f"the schedule deadlocked at {pc}")


def closed_forms(P, V, m, f, b, x):
    ideal = m * V * (f + b) + (P - 1) * (f + b)
    return ideal, ideal + 2 * (V * m + P - 1) * x


def from_ridge(binary, args):
    out = subprocess.run([binary, "predict", "--format", "json"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"pipeline_sim.py: ridge predict: {out.stderr.strip()}")
    d = json.loads(out.stdout)
    p = d["parallel"]
    V = p["virtual_stages"] if p["schedule"] == "interleaved" else 1
    bd = d["breakdown_s"]
    ridge_part = bd["compute"] - d["grad_accumulate_s"] + bd["bubble"] + bd["pp_comm"]
    return (p["pp"], V, int(round(d["microbatches"])), d["stage_forward_s"] / V, d["stage_backward_s"] / V,
            d["p2p_s"], ridge_part)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pp", type=int)
    ap.add_argument("--virtual-stages", type=int, default=1)
    ap.add_argument("--microbatches", type=int)
    ap.add_argument("--fwd", type=float)
    ap.add_argument("--bwd", type=float)
    ap.add_argument("--p2p", type=float, default=0.0)
    ap.add_argument("--cv", type=float, default=0.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ridge", help="take the inputs from `ridge predict --cluster` (arguments after --)")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    ridge_part = None
    if a.ridge:
        rest = a.rest[1:] if a.rest[:1] == ["--"] else a.rest
        P, V, m, f, b, x, ridge_part = from_ridge(a.ridge, rest)
    else:
        if None in (a.pp, a.microbatches, a.fwd, a.bwd):
            ap.error("give --pp, --microbatches, --fwd and --bwd, or --ridge")
        P, V, m, f, b, x = a.pp, a.virtual_stages, a.microbatches, a.fwd, a.bwd, a.p2p
    if P < 1 or V < 1 or m < 1 or not (f > 0 and b > 0 and x >= 0 and a.cv >= 0 and a.reps >= 1):
        ap.error("P, V, M >= 1; F, B > 0; X, C >= 0; R >= 1")
    if V > 1 and m % P:
        ap.error(f"the interleaved schedule needs the microbatches ({m}) to be a multiple of P ({P})")
    rng = random.Random(a.seed)
    reps = a.reps if a.cv > 0 else 1
    sim = sum(simulate(P, V, m, f, b, x, a.cv, rng) for _ in range(reps)) / reps
    ideal, ridge_form = closed_forms(P, V, m, f, b, x)
    print(f"P {P} V {V} microbatches {m}: chunk F {f:.6g} s, B {b:.6g} s, p2p {x:.6g} s, cv {a.cv:g}")
    print(f"simulated step      {sim:.6g} s")
    print(f"no communication    {ideal:.6g} s  (simulated / this = {sim / ideal:.4f})")
    print(f"ridge closed form   {ridge_form:.6g} s  (simulated / this = {sim / ridge_form:.4f})")
    if ridge_part is not None:
        print(f"ridge predict       {ridge_part:.6g} s  (compute less accumulation + bubble + pp comm; "
              f"simulated / this = {sim / ridge_part:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
