#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""coordinators.py - an example external planner for gridbed (docs/plugins.md).

gridbed runs it once per tree it needs: a plan request (JSON) on standard
input, a tree file (JSON) on standard output.  Any failure: print one line
on standard error and exit non-zero; gridbed reports that line.

The tree: the root sends to one coordinator in every other cluster, the
clusters in the order their coordinator gets the message soonest from the
root (latency + size / bandwidth), then every coordinator, and the root in
its own cluster, sends to its cluster's other nodes in rank order (MagPIe's
shape, seed 000 s1, with a measured order of the clusters).

Try it by hand:
    gridtree plan --algo external:./coordinators.py --topo teragrid.yaml \\
        --root c2-1 --size 1M
"""
import json
import sys


def plan(req):
    m = req["model"]
    names = [v["name"] for v in m["nodes"]]
    cluster = [v["cluster"] for v in m["nodes"]]
    lat, bw = m["lat"], m["bw"]
    root, size = req["root_index"], req["size"]

    def arrival(u, v):
        b = bw[u][v]
        return lat[u][v] + (size / b if b > 0 else 0.0)

    members = {}
    for v, c in enumerate(cluster):
        members.setdefault(c, []).append(v)
    children = {name: [] for name in names}
    coord = {cluster[root]: root}
    # one coordinator per other cluster: its node the root reaches first
    for c, vs in members.items():
        if c != cluster[root]:
            coord[c] = min(vs, key=lambda v: (arrival(root, v), v))
    others = sorted((c for c in coord if c != cluster[root]),
                    key=lambda c: (arrival(root, coord[c]), c))
    children[names[root]] = [names[coord[c]] for c in others]
    for c, vs in members.items():
        head = coord[c]
        children[names[head]] += [names[v] for v in vs if v != head]
    return {
        "format": "gridbed-tree",
        "algo": req["algo"],
        "root": names[root],
        "size": size,
        "children": {k: v for k, v in children.items() if v},
    }


def main():
    try:
        req = json.load(sys.stdin)
        if req.get("abi") != 1:
            raise ValueError("request ABI %r, this planner knows 1" % req.get("abi"))
        json.dump(plan(req), sys.stdout)
        sys.stdout.write("\n")
    except (ValueError, KeyError, TypeError) as e:
        print("coordinators.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
