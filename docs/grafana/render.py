#!/usr/bin/env python3
"""Render the panels of docs/grafana/reliable-udp.json from recorded Prometheus scrapes.

There is no Grafana on the build machine, so this draws what the dashboard would show: it reads a
capture (one Prometheus text scrape per line, as written by
io.reliableudp.spring.boot.metrics.GrafanaCapture), evaluates every panel's PromQL expression over it
with a small evaluator (the subset the dashboard uses: selectors with =, !=, =~, !~; rate();
sum/min/max/avg by; histogram_quantile(); a / b), and lays the panels out by their gridPos as an
HTML page of SVG charts. A headless browser turns the page into a PNG.

Differences from Grafana + Prometheus, on purpose and small: rate() is (last - first) / (time
between them) inside the window, with counter resets handled but without Prometheus's
extrapolation to the window edges; $__rate_interval is fixed (--rate-interval, default 10s, the
capture scrapes every second); All in the node and peer variables.

Usage: render.py capture.jsonl out.html [--log capture.log] [--rate-interval 10]
Standard library only.
"""
import html
import json
import math
import re
import sys
from pathlib import Path

# ---------------------------------------------------------------- capture

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def load(path):
    """Returns (times, series) with series[(name, labels-tuple)] = {t: value}."""
    times, series = [], {}
    for line in Path(path).read_text().splitlines():
        rec = json.loads(line)
        t = float(rec["t"])
        times.append(t)
        for row in rec["text"].splitlines():
            if not row or row.startswith("#"):
                continue
            m = LINE.match(row)
            if not m:
                continue
            labels = tuple(sorted(LABEL.findall(m.group(3) or "")))
            try:
                v = float(m.group(4))
            except ValueError:
                continue
            series.setdefault((m.group(1), labels), {})[t] = v
    return times, series


# ---------------------------------------------------------------- PromQL subset

TOKEN = re.compile(r'\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<op>=~|!~|!=|[=(){}\[\],/])|(?P<id>[a-zA-Z_:][a-zA-Z0-9_:]*))')


def tokenize(s):
    pos, out = 0, []
    s = s.strip()
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot parse PromQL at: " + s[pos:])
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class Parser:
    def __init__(self, text):
        self.t = tokenize(text)
        self.i = 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if value is not None and tok[1] != value:
            raise ValueError("expected %r, got %r" % (value, tok[1]))
        self.i += 1
        return tok

    def parse(self):
        e = self.expr()
        if self.i != len(self.t):
            raise ValueError("trailing tokens: %r" % (self.t[self.i:],))
        return e

    def expr(self):
        left = self.term()
        while self.peek()[1] == "/":
            self.take("/")
            left = ("div", left, self.term())
        return left

    def labels(self):
        self.take("(")
        names = []
        while self.peek()[1] != ")":
            names.append(self.take()[1])
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return names

    def term(self):
        kind, val = self.peek()
        if kind == "num":
            self.take()
            return ("num", float(val))
        if val == "(":
            self.take("(")
            e = self.expr()
            self.take(")")
            return e
        if val in ("sum", "min", "max", "avg"):
            self.take()
            by = None
            if self.peek()[1] == "by":
                self.take("by")
                by = self.labels()
            self.take("(")
            inner = self.expr()
            self.take(")")
            if by is None and self.peek()[1] == "by":
                self.take("by")
                by = self.labels()
            return ("agg", val, by or [], inner)
        if val == "rate":
            self.take()
            self.take("(")
            sel = self.selector()
            self.take(")")
            if sel[3] is None:
                raise ValueError("rate() needs a range")
            return ("rate", sel)
        if val == "histogram_quantile":
            self.take()
            self.take("(")
            q = float(self.take()[1])
            self.take(",")
            inner = self.expr()
            self.take(")")
            return ("hq", q, inner)
        return self.selector()

    def selector(self):
        name = self.take()[1]
        matchers = []
        if self.peek()[1] == "{":
            self.take("{")
            while self.peek()[1] != "}":
                label = self.take()[1]
                op = self.take()[1]
                value = json.loads(self.take()[1])
                matchers.append((label, op, value))
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("}")
        rng = None
        if self.peek()[1] == "[":
            self.take("[")
            num = self.take()[1]
            unit = self.take()[1] if self.peek()[0] == "id" else "s"
            self.take("]")
            rng = float(num) * {"s": 1, "m": 60, "h": 3600}[unit]
        return ("sel", name, matchers, rng)


def matches(labels, matchers):
    d = dict(labels)
    for label, op, value in matchers:
        have = d.get(label, "")
        if op == "=" and have != value:
            return False
        if op == "!=" and have == value:
            return False
        if op == "=~" and not re.fullmatch(value, have):
            return False
        if op == "!~" and re.fullmatch(value, have):
            return False
    return True


class Evaluator:
    def __init__(self, series):
        self.by_name = {}
        for (name, labels), points in series.items():
            self.by_name.setdefault(name, []).append((labels, points))

    def eval(self, node, t):
        """Instant vector at t: {labels-tuple: value}."""
        kind = node[0]
        if kind == "num":
            return {(): node[1]}
        if kind == "sel":
            _, name, matchers, _ = node
            out = {}
            for labels, points in self.by_name.get(name, []):
                if matchers_ok(labels, matchers) and t in points:
                    out[labels] = points[t]
            return out
        if kind == "rate":
            _, name, matchers, rng = node[1]
            out = {}
            for labels, points in self.by_name.get(name, []):
                if not matchers_ok(labels, matchers):
                    continue
                window = sorted((ts, v) for ts, v in points.items() if t - rng < ts <= t)
                if len(window) < 2:
                    continue
                increase, prev = 0.0, window[0][1]
                for _, v in window[1:]:
                    increase += v - prev if v >= prev else v  # counter reset
                    prev = v
                out[labels] = increase / (window[-1][0] - window[0][0])
            return out
        if kind == "agg":
            _, op, by, inner = node
            groups = {}
            for labels, v in self.eval(inner, t).items():
                key = tuple((k, val) for k, val in labels if k in by)
                groups.setdefault(key, []).append(v)
            fn = {"sum": sum, "min": min, "max": max, "avg": lambda xs: sum(xs) / len(xs)}[op]
            return {k: fn(vs) for k, vs in groups.items()}
        if kind == "hq":
            _, q, inner = node
            groups = {}
            for labels, v in self.eval(inner, t).items():
                d = dict(labels)
                le = d.pop("le", None)
                if le is None:
                    continue
                groups.setdefault(tuple(sorted(d.items())), []).append((math.inf if le == "+Inf" else float(le), v))
            return {k: quantile(q, sorted(b)) for k, b in groups.items() if quantile(q, sorted(b)) is not None}
        if kind == "div":
            left, right = self.eval(node[1], t), self.eval(node[2], t)
            return {k: v / right[k] for k, v in left.items() if k in right and right[k] != 0}
        raise ValueError(kind)


def matchers_ok(labels, matchers):
    return matches(labels, matchers)


def quantile(q, buckets):
    """Prometheus's histogram_quantile over cumulative (upper bound, count) buckets."""
    if not buckets or buckets[-1][0] != math.inf:
        return None
    total = buckets[-1][1]
    if total == 0:
        return None
    rank = q * total
    prev_bound, prev_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == math.inf:
                return prev_bound
            if count == prev_count:
                return bound
            return prev_bound + (bound - prev_bound) * (rank - prev_count) / (count - prev_count)
        prev_bound, prev_count = bound, count
    return prev_bound


# ---------------------------------------------------------------- drawing

COLORS = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#fade2a",
          "#37872d", "#e0b400", "#1f60c4", "#c4162a", "#8f3bb8", "#fa6400", "#96d98d", "#ffb357"]
COL, ROW = 1600 / 24, 32


def fmt(v, unit):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if unit == "s":
        if abs(v) < 1e-3:
            return "%.0f µs" % (v * 1e6)
        if abs(v) < 1:
            return "%.1f ms" % (v * 1e3)
        return "%.2f s" % v
    if unit == "percentunit":
        return "%.1f%%" % (v * 100)
    if unit == "Bps":
        for div, name in ((1e6, "MB/s"), (1e3, "kB/s")):
            if abs(v) >= div:
                return "%.1f %s" % (v / div, name)
        return "%.0f B/s" % v
    suffix = " p/s" if unit == "pps" else ""
    if abs(v) >= 1000:
        return "%.1fk%s" % (v / 1000, suffix)
    if v == int(v):
        return "%d%s" % (v, suffix)
    return "%.2f%s" % (v, suffix)


def legend(fmt_, labels):
    d = dict(labels)
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: d.get(m.group(1), ""), fmt_) if fmt_ else str(d)


def nice_max(v):
    if v <= 0:
        return 1
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * exp:
            return m * exp
    return 10 * exp


def timeseries(panel, data, times, phases, w, h):
    unit = panel["fieldConfig"]["defaults"].get("unit", "short")
    left, right, top, bottom = 62, 10, 8, 22
    legend_rows = (len(data) + 2) // 3
    bottom += 16 * legend_rows
    pw, ph = w - left - right, h - top - bottom
    t0, t1 = times[0], times[-1]
    ymax = nice_max(max([v for s in data.values() for v in s.values()] + [0]))
    x = lambda t: left + (t - t0) / (t1 - t0) * pw
    y = lambda v: top + ph - v / ymax * ph
    out = []
    for k, (a, b, name) in enumerate(phases):
        if k % 2:
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#ffffff" opacity="0.04"/>' % (x(a), top, max(0, x(b) - x(a)), ph))
        out.append('<text x="%.1f" y="%d" class="phase">%s</text>' % (x(a) + 3, top + 10 + 10 * (k % 2), html.escape(name)))
    for i in range(5):
        v = ymax * i / 4
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>' % (left, left + pw, y(v), y(v)))
        out.append('<text x="%d" y="%.1f" class="axis" text-anchor="end">%s</text>' % (left - 4, y(v) + 4, fmt(v, unit)))
    step = 30 if (t1 - t0) > 120 else 10
    t = math.ceil(t0 / step) * step
    while t <= t1:
        out.append('<text x="%.1f" y="%d" class="axis" text-anchor="middle">%d:%02d</text>' % (x(t), top + ph + 14, t // 60, t % 60))
        t += step
    for i, (name, s) in enumerate(sorted(data.items())):
        color = COLORS[i % len(COLORS)]
        segs, cur = [], []
        for t in times:
            if t in s:
                cur.append("%.1f,%.1f" % (x(t), y(s[t])))
            elif cur:
                segs.append(cur)
                cur = []
        if cur:
            segs.append(cur)
        for seg in segs:
            if len(seg) == 1:
                cx, cy = seg[0].split(",")
                out.append('<circle cx="%s" cy="%s" r="1.5" fill="%s"/>' % (cx, cy, color))
            else:
                out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="1.4"/>' % (" ".join(seg), color))
        lx = left + (i % 3) * (pw / 3)
        ly = top + ph + 30 + (i // 3) * 16
        out.append('<rect x="%.1f" y="%d" width="10" height="3" fill="%s"/>' % (lx, ly - 4, color))
        out.append('<text x="%.1f" y="%d" class="legend">%s</text>' % (lx + 14, ly, html.escape(name)))
    return "\n".join(out)


def stat(panel, data, w, h):
    defaults = panel["fieldConfig"]["defaults"]
    unit = defaults.get("unit", "short")
    mappings = {}
    for m in defaults.get("mappings", []):
        mappings.update(m.get("options", {}))
    steps = defaults.get("thresholds", {}).get("steps", [{"color": "#73bf69", "value": None}])
    items = sorted(data.items())
    if not items:
        return '<text x="%d" y="%d" class="big" text-anchor="middle" fill="#888">No data</text>' % (w / 2, h / 2)
    out = []
    cw = w / len(items)
    for i, (name, s) in enumerate(items):
        last = s[max(s)] if s else None
        text, color = fmt(last, unit), None
        key = str(int(last)) if last is not None and last == int(last) else None
        if key in mappings:
            text = mappings[key].get("text", text)
            color = mappings[key].get("color")
        if color is None:
            color = steps[0]["color"]
            for st in steps:
                if st["value"] is not None and last is not None and last >= st["value"]:
                    color = st["color"]
        color = {"green": "#73bf69", "red": "#f2495c", "orange": "#ff9830"}.get(color, color)
        cx = cw * i + cw / 2
        out.append('<text x="%.1f" y="%d" class="statname" text-anchor="middle">%s</text>' % (cx, 18, html.escape(name)))
        out.append('<text x="%.1f" y="%d" class="big" text-anchor="middle" fill="%s">%s</text>' % (cx, h / 2 + 18, color, html.escape(text)))
    return "\n".join(out)


def main(argv):
    args = argv[1:]
    log, rate_interval = None, 10
    if "--log" in args:
        i = args.index("--log")
        log = args[i + 1]
        del args[i:i + 2]
    if "--rate-interval" in args:
        i = args.index("--rate-interval")
        rate_interval = int(args[i + 1])
        del args[i:i + 2]
    capture, out_html = args[0], args[1]
    dashboard = json.loads((Path(__file__).parent / "reliable-udp.json").read_text())
    times, series = load(capture)
    ev = Evaluator(series)
    phases = []
    if log:
        marks = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^t=(\d+)s phase (\d) ", Path(log).read_text(), re.M)]
        names = {"0": "clean", "1": "40 ms, 3% loss", "2": "80 ms, 15% bursty loss", "3": "clean",
                 "4": "server killed", "5": "server back"}
        for k, (t, p) in enumerate(marks):
            end = marks[k + 1][0] if k + 1 < len(marks) else times[-1]
            phases.append((t, end, names.get(p, p)))
    height = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in dashboard["panels"]) * ROW
    parts = []
    for panel in dashboard["panels"]:
        g = panel["gridPos"]
        w, h = g["w"] * COL - 8, g["h"] * ROW - 8
        data = {}
        for target in panel["targets"]:
            expr = target["expr"].replace("$__rate_interval", "%ds" % rate_interval)
            expr = expr.replace('"$node"', '".*"').replace('"$peer"', '".*"')
            tree = Parser(expr).parse()
            for t in times:
                for labels, v in ev.eval(tree, t).items():
                    if v is not None and not math.isnan(v):
                        data.setdefault(legend(target.get("legendFormat"), labels), {})[t] = v
        body = stat(panel, data, w, h - 24) if panel["type"] == "stat" else timeseries(panel, data, times, phases, w, h - 24)
        parts.append('<div class="panel" style="left:%dpx;top:%dpx;width:%dpx;height:%dpx"><div class="title">%s</div>'
                     '<svg width="%d" height="%d">%s</svg></div>'
                     % (g["x"] * COL + 4, g["y"] * ROW + 52, w, h, html.escape(panel["title"]), w, h - 24, body))
    page = """<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#111217;font-family:Inter,Helvetica,Arial,sans-serif;color:#ccccdc}
.head{position:absolute;left:8px;top:8px;font-size:15px}.head b{color:#fff}.head span{color:#8e8e9e;font-size:12px;margin-left:14px}
.panel{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:2px;box-sizing:border-box}
.title{font-size:13px;font-weight:500;color:#ccccdc;padding:5px 8px;height:14px}
svg text{font-family:Inter,Helvetica,Arial,sans-serif}
.axis{font-size:10px;fill:#8e8e9e}.legend{font-size:10.5px;fill:#ccccdc}.grid{stroke:#2c3235;stroke-width:1}
.big{font-size:26px;font-weight:600}.statname{font-size:11px;fill:#8e8e9e}.phase{font-size:9.5px;fill:#6e6e7e}
</style></head><body>
<div class="head"><b>reliable-udp</b><span>node: All &nbsp; peer: All &nbsp; | rendered by docs/grafana/render.py from %d real Prometheus scrapes (1/s), not a Grafana screenshot</span></div>
%s</body></html>""" % (len(times), "\n".join(parts))
    Path(out_html).write_text(page)
    print("%s: %d panels, %d scrapes, page %dx%d" % (out_html, len(dashboard["panels"]), len(times), 1600, height + 60))


if __name__ == "__main__":
    main(sys.argv)
