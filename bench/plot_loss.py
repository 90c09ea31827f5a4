"""Plots the loss curves of training runs to a PNG, with the standard
library only (the GPU machines and CI need no matplotlib).

  plot_loss.py OUT.png RUN.jsonl [RUN2.jsonl ...] [--label NAME ...]

Each RUN is a metrics file of attn-train --metrics or bench/train_gpt.py
(one JSON object per line with "step" and "loss"); skipped steps (a loss
of null) are left out; a run's validation losses ("val_loss", attn-train
--val-data) are a curve of their own, labelled "<label> val". The plot
has the steps on x, the loss on y, five labelled ticks on each axis and a
legend of the curves' labels (default: the files' names).
"""

import argparse
import json
import os
import struct
import zlib

# A 5x7 font: each glyph is 7 rows of 5 bits, the high bit leftmost.
FONT = {
    "0": [14, 17, 19, 21, 25, 17, 14], "1": [4, 12, 4, 4, 4, 4, 14],
    "2": [14, 17, 1, 2, 4, 8, 31], "3": [31, 2, 4, 2, 1, 17, 14],
    "4": [2, 6, 10, 18, 31, 2, 2], "5": [31, 16, 30, 1, 1, 17, 14],
    "6": [6, 8, 16, 30, 17, 17, 14], "7": [31, 1, 2, 4, 8, 8, 8],
    "8": [14, 17, 17, 14, 17, 17, 14], "9": [14, 17, 17, 15, 1, 2, 12],
    ".": [0, 0, 0, 0, 0, 12, 12], "-": [0, 0, 0, 31, 0, 0, 0],
    "+": [0, 4, 4, 31, 4, 4, 0], "_": [0, 0, 0, 0, 0, 0, 31],
    "/": [1, 1, 2, 4, 8, 16, 16], " ": [0] * 7, ":": [0, 12, 12, 0, 12, 12, 0],
    "a": [0, 0, 14, 1, 15, 17, 15], "b": [16, 16, 22, 25, 17, 17, 30],
    "c": [0, 0, 14, 16, 16, 17, 14], "d": [1, 1, 13, 19, 17, 17, 15],
    "e": [0, 0, 14, 17, 31, 16, 14], "f": [6, 9, 8, 28, 8, 8, 8],
    "g": [0, 15, 17, 17, 15, 1, 14], "h": [16, 16, 22, 25, 17, 17, 17],
    "i": [4, 0, 12, 4, 4, 4, 14], "j": [2, 0, 6, 2, 2, 18, 12],
    "k": [16, 16, 18, 20, 24, 20, 18], "l": [12, 4, 4, 4, 4, 4, 14],
    "m": [0, 0, 26, 21, 21, 17, 17], "n": [0, 0, 22, 25, 17, 17, 17],
    "o": [0, 0, 14, 17, 17, 17, 14], "p": [0, 0, 30, 17, 30, 16, 16],
    "q": [0, 0, 13, 19, 15, 1, 1], "r": [0, 0, 22, 25, 16, 16, 16],
    "s": [0, 0, 14, 16, 14, 1, 30], "t": [8, 8, 28, 8, 8, 9, 6],
    "u": [0, 0, 17, 17, 17, 19, 13], "v": [0, 0, 17, 17, 17, 10, 4],
    "w": [0, 0, 17, 17, 21, 21, 10], "x": [0, 0, 17, 10, 4, 10, 17],
    "y": [0, 0, 17, 17, 15, 1, 14], "z": [0, 0, 31, 2, 4, 8, 31],
}
COLORS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189),
          (255, 127, 14), (23, 190, 207)]


class Canvas:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def set(self, x, y, color):
        if 0 <= x < self.width and 0 <= y < self.height:
            i = (y * self.width + x) * 3
            self.pixels[i:i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(y0, y1):
            for x in range(x0, x1):
                self.set(x, y, color)

    def line(self, x0, y0, x1, y1, color, thick=1):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in range(steps + 1):
            x = round(x0 + (x1 - x0) * i / steps)
            y = round(y0 + (y1 - y0) * i / steps)
            self.rect(x, y, x + thick, y + thick, color)

    def text(self, x, y, s, color=(0, 0, 0)):
        """`s` (lower-cased; unknown characters as blanks) from (x, y), its
        top left corner, at twice the font's size."""
        for c in s.lower():
            for row, bits in enumerate(FONT.get(c, FONT[" "])):
                for col in range(5):
                    if bits & (16 >> col):
                        self.rect(x + 2 * col, y + 2 * row,
                                  x + 2 * col + 2, y + 2 * row + 2, color)
            x += 12

    def png(self):
        rows = b"".join(
            b"\x00" + bytes(self.pixels[y * self.width * 3:
                                        (y + 1) * self.width * 3])
            for y in range(self.height))

        def chunk(kind, data):
            body = kind + data
            return (struct.pack(">I", len(data)) + body +
                    struct.pack(">I", zlib.crc32(body) & 0xffffffff))
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0,
                             0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
                chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def tick_text(value):
    return f"{value:.3g}"


def plot(runs, labels, width, height):
    canvas = Canvas(width, height)
    left, right, top, bottom = 90, width - 20, 30, height - 50
    points = [p for run in runs for p in run]
    x_min, x_max = min(p[0] for p in points), max(p[0] for p in points)
    y_min, y_max = min(p[1] for p in points), max(p[1] for p in points)
    x_max, y_max = max(x_max, x_min + 1), max(y_max, y_min + 1e-6)

    def at(step, loss):
        return (round(left + (step - x_min) / (x_max - x_min) * (right - left)),
                round(bottom - (loss - y_min) / (y_max - y_min) *
                      (bottom - top)))
    canvas.line(left, top, left, bottom, (0, 0, 0))
    canvas.line(left, bottom, right, bottom, (0, 0, 0))
    for i in range(5):
        x_value = x_min + (x_max - x_min) * i / 4
        y_value = y_min + (y_max - y_min) * i / 4
        x, _ = at(x_value, y_min)
        _, y = at(x_min, y_value)
        canvas.line(x, bottom, x, bottom + 5, (0, 0, 0))
        canvas.line(left - 5, y, left, y, (0, 0, 0))
        canvas.text(x - 6 * len(tick_text(x_value)), bottom + 10,
                    tick_text(x_value))
        canvas.text(left - 10 - 12 * len(tick_text(y_value)), y - 7,
                    tick_text(y_value))
    canvas.text(right - 4 * 12, bottom + 30, "step")
    canvas.text(8, top + 20, "loss")
    for k, (run, label) in enumerate(zip(runs, labels)):
        color = COLORS[k % len(COLORS)]
        for (s0, l0), (s1, l1) in zip(run, run[1:]):
            canvas.line(*at(s0, l0), *at(s1, l1), color, thick=2)
        y = top + 10 + 22 * k
        canvas.rect(right - 260, y, right - 240, y + 14, color)
        canvas.text(right - 230, y, label[:19])
    return canvas.png()


def read_run(path, key="loss"):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [(r["step"], r[key]) for r in rows if r.get(key) is not None]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--label", action="append", default=[])
    parser.add_argument("--width", type=int, default=800)
    parser.add_argument("--height", type=int, default=480)
    a = parser.parse_args()
    names = a.label + [os.path.splitext(os.path.basename(p))[0]
                       for p in a.runs[len(a.label):]]
    runs, labels = [], []
    for path, name in zip(a.runs, names):
        losses = read_run(path)
        if not losses:
            parser.error(f"{path} has no loss to plot")
        runs.append(losses)
        labels.append(name)
        validation = read_run(path, "val_loss")
        if validation:
            runs.append(validation)
            labels.append(name + " val")
    with open(a.out, "wb") as f:
        f.write(plot(runs, labels, a.width, a.height))
    print(f"{a.out}: {len(runs)} runs, {sum(map(len, runs))} points")


if __name__ == "__main__":
    main()
