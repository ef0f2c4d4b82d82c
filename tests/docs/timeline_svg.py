#!/usr/bin/python3
"""Draws the pipeline timeline of docs/guide/programming-model.md from two `aicore profile`
directories (single- and double-buffered runs of one kernel): the MTE2, V and MTE3 lanes of the
first launch's AIV 0, every instruction a bar at its modeled start and duration (trace.json).

  timeline_svg.py SINGLE_DIR DOUBLE_DIR > out.svg
"""
import json
import pathlib
import sys

LANES = [("MTE2", "#4e79a7", "MTE2 (GM to UB)"), ("V", "#f28e2b", "V (vector)"),
         ("MTE3", "#59a14f", "MTE3 (UB to GM)")]
WIDTH = 760
LEFT = 130
LANE_H = 22
PANEL_GAP = 40


def load(profile_dir):
    """Returns ({lane: [(start_us, dur_us, name)]}, end_us, title) of the first AIV 0."""
    data = json.loads((pathlib.Path(profile_dir) / "trace.json").read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    pid = None
    lanes_by_tid = {}
    kernel = ""
    for e in events:
        if e.get("ph") != "M":
            continue
        if e["name"] == "process_name" and pid is None and e["args"]["name"].endswith("AIV 0"):
            pid = e["pid"]
            kernel = e["args"]["name"].rsplit(" AIV", 1)[0]
        if e["name"] == "thread_name" and e["pid"] == pid:
            lanes_by_tid[e["tid"]] = e["args"]["name"]
    bars = {name: [] for name, _, _ in LANES}
    end = 0.0
    for e in events:
        if e.get("ph") != "X" or e.get("pid") != pid:
            continue
        lane = lanes_by_tid.get(e["tid"])
        end = max(end, e["ts"] + e["dur"])
        if lane in bars and e["dur"] > 0 and e.get("args", {}).get("op") != "QueueWait":
            bars[lane].append((e["ts"], e["dur"], e["name"]))
    return bars, end, kernel


def render(single_dir, double_dir):
    panels = [(load(single_dir), "one buffer per queue"),
              (load(double_dir), "two buffers per queue")]
    scale_end = max(p[0][1] for p in panels)
    px = (WIDTH - LEFT - 20) / scale_end
    panel_h = LANE_H * len(LANES) + 50
    height = 30 + len(panels) * (panel_h + PANEL_GAP)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="14" font-weight="bold">{panels[0][0][2]}, AIV 0: '
           'modeled pipe timeline (aicore profile, ascend910b1)</text>']
    y0 = 36
    for (bars, end, _), title in panels:
        out.append(f'<text x="10" y="{y0 + 12}" font-weight="bold">{title}: body {end:.3f} us'
                   '</text>')
        for i, (lane, color, label) in enumerate(LANES):
            y = y0 + 20 + i * LANE_H
            out.append(f'<text x="10" y="{y + 14}">{label}</text>')
            out.append(f'<line x1="{LEFT}" y1="{y + LANE_H - 2}" x2="{WIDTH - 20}" '
                       f'y2="{y + LANE_H - 2}" stroke="#ddd"/>')
            for start, dur, name in bars[lane]:
                out.append(f'<rect x="{LEFT + start * px:.1f}" y="{y + 2}" '
                           f'width="{max(dur * px, 0.8):.1f}" height="{LANE_H - 6}" fill="{color}" '
                           f'stroke="white" stroke-width="0.5"><title>{name} {start:.3f}+'
                           f'{dur:.3f} us</title></rect>')
        axis_y = y0 + 20 + len(LANES) * LANE_H + 4
        step = 0.5 if scale_end < 6 else 1.0 if scale_end < 12 else 5.0
        t = 0.0
        while t <= scale_end + 1e-9:
            x = LEFT + t * px
            out.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" '
                       'stroke="black"/>')
            out.append(f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{t:g}</text>')
            t += step
        out.append(f'<text x="{LEFT - 12}" y="{axis_y + 16}" text-anchor="end">time (us)</text>')
        y0 += panel_h + PANEL_GAP
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render(sys.argv[1], sys.argv[2]))
