#!/usr/bin/env python3
"""Plots rebalance time against group size from stress-harness JSON files.

usage: scripts/plot_stress.py OUT.svg RESULT.json [RESULT.json ...]

Reads the cold-start row of each file and draws, against members per group
and for each group protocol (classic; consumer, KIP-848), the time from the
first join until every member holds its assignment and the time from the last
join until then, with a straight line through the origin and the largest
classic run for comparison: linear growth stays on it, quadratic growth bends
away. Plain SVG, no third-party packages.
"""
import json
import sys


def load(paths):
    """{protocol: [(members, first join -> all, last join -> all)]}"""
    series = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for row in data["rows"]:
            if row["scenario"] == "cold-start":
                series.setdefault(row.get("protocol", "classic"), []).append(
                    (row["members_per_group"], row["max_ms"],
                     row["since_last_join_ms"]))
    return {k: sorted(v) for k, v in series.items()}


def nice_step(span, ticks=5):
    """A round step (1, 2 or 5 times a power of ten) for about `ticks`."""
    raw = span / ticks
    power = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def svg(by_protocol, cores):
    width, height, left, right, top, bottom = 720, 440, 80, 30, 40, 60
    points = [p for pts in by_protocol.values() for p in pts]
    xstep = nice_step(max(p[0] for p in points))
    ystep = nice_step(max(max(p[1], p[2]) for p in points))
    xmax = xstep * (int(max(p[0] for p in points) / xstep) + 1)
    ymax = ystep * (int(max(max(p[1], p[2]) for p in points) / ystep) + 1)
    sx = lambda x: left + (width - left - right) * x / xmax
    sy = lambda y: height - bottom - (height - top - bottom) * y / ymax
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" '
           f'font-size="15">troupe: rebalance time against group size '
           f'(cold start, one group, {cores} cores)</text>']
    # axes and grid
    for i in range(int(round(ymax / ystep)) + 1):
        y = ystep * i
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{sy(y):.1f}" '
                   f'y2="{sy(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{sy(y) + 4:.1f}" '
                   f'text-anchor="end">{y:,.0f}</text>')
    for i in range(int(round(xmax / xstep)) + 1):
        x = xstep * i
        out.append(f'<text x="{sx(x):.1f}" y="{height - bottom + 18}" '
                   f'text-anchor="middle">{x:,.0f}</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{sy(0)}" '
               f'y2="{sy(0)}" stroke="black"/>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{sy(0)}" '
               f'stroke="black"/>')
    out.append(f'<text x="{width / 2}" y="{height - 15}" '
               f'text-anchor="middle">members in the group</text>')
    out.append(f'<text x="18" y="{height / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {height / 2})">milliseconds</text>')
    # linear reference through the largest run's after-last-join time
    reference = by_protocol.get("classic") or points
    n, _, last = max(reference)
    out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(n):.1f}" '
               f'y2="{sy(last):.1f}" stroke="#999" stroke-dasharray="5,4"/>')
    colors = {("classic", 1): "#c0392b", ("classic", 2): "#2471a3",
              ("consumer", 1): "#d68910", ("consumer", 2): "#1e8449"}
    names = {"classic": "classic", "consumer": "KIP-848"}
    series = [(f"{names.get(proto, proto)}: {what}", proto, idx,
               colors.get((proto, idx), "#555"))
              for proto in sorted(by_protocol)
              for what, idx in (("first join until all assigned", 1),
                                ("last join until all assigned", 2))]
    for k, (label, proto, idx, color) in enumerate(series):
        pts_of = by_protocol[proto]
        pts = " ".join(f"{sx(p[0]):.1f},{sy(p[idx]):.1f}" for p in pts_of)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" '
                   f'stroke-width="2"/>')
        for p in pts_of:
            out.append(f'<circle cx="{sx(p[0]):.1f}" cy="{sy(p[idx]):.1f}" '
                       f'r="3.5" fill="{color}"/>')
        ly = top + 16 + 18 * k
        out.append(f'<line x1="{left + 16}" x2="{left + 40}" y1="{ly}" '
                   f'y2="{ly}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{left + 46}" y="{ly + 4}">{label}</text>')
    ly = top + 16 + 18 * len(series)
    out.append(f'<line x1="{left + 16}" x2="{left + 40}" y1="{ly}" y2="{ly}" '
               f'stroke="#999" stroke-dasharray="5,4"/>')
    out.append(f'<text x="{left + 46}" y="{ly + 4}">linear growth</text>')
    out.append('</svg>')
    return "\n".join(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    paths = sys.argv[2:]
    points = load(paths)
    if not points:
        sys.exit("no cold-start rows in " + ", ".join(paths))
    with open(paths[0]) as f:
        cores = json.load(f).get("cores", "?")
    with open(sys.argv[1], "w") as f:
        f.write(svg(points, cores))


if __name__ == "__main__":
    main()
