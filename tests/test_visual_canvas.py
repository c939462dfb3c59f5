"""The timeline's drawing (visual/plot.py on visual/canvas.py): ticks where matplotlib's locator puts them, boxes
at their time in the PNG's pixels with their colour, an SVG that is XML holding the rows' titles, labels cut to
their box."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from matplotlib.ticker import MaxNLocator
from PIL import Image

import nsys_analytics
from nsys_analytics.capabilities.visual import canvas, plot
from nsys_analytics.capabilities.visual.timeline import build_timeline
from nsys_analytics.capabilities.visual.window import WindowRequest

from .conftest import PROFILES

GRAPHS = PROFILES / "copies_streams_graph.sqlite"


@pytest.mark.parametrize("start, end", [(877995.31, 878005.31), (5294.75, 5302.23), (2471.4, 2473.1),
                                        (0.0, 1753641.164), (5293.8270, 5293.8470), (-3.0, 7.5)])
def test_ticks_are_matplotlibs(start, end):
    expected = [t for t in MaxNLocator(nbins=9, steps=[1, 2, 2.5, 5, 10]).tick_values(start, end)
                if start - 1e-9 <= t <= end + 1e-9]
    ticks, _ = plot._ticks(start, end)
    assert ticks == pytest.approx(expected, rel=0, abs=(end - start) * 1e-9)


def _graph_timeline():
    with nsys_analytics.open(GRAPHS) as p:
        return build_timeline(p, WindowRequest("2471.4ms", "2473.1ms"), width_px=1200)


def test_png_boxes_sit_at_their_time_in_their_colour():
    t = _graph_timeline()
    image = Image.open(io.BytesIO(plot.timeline_png(t))).convert("RGB")
    assert image.size[0] == plot.TITLES_PX + 1200 + plot.RIGHT_PX
    graphs = [b for b in t.boxes if t.lanes[b.lane].kind == "graph"]
    assert len(graphs) == 5  # five cudaGraphLaunch calls (test_visual_timeline)
    navy = tuple(int(plot.FIXED_COLORS["CUDA graph"][i:i + 2], 16) for i in (1, 3, 5))
    for b in graphs:
        # 1200 columns over 1.7 ms; a box's middle, a quarter of the way into it (clear of its label)
        x = plot.TITLES_PX + ((b.start_ns * 3 + b.end_ns) / 4 - 2471.4e6) / 1.7e6 * 1200
        rows = [image.getpixel((round(x), y)) for y in range(image.size[1])]
        assert navy in rows, b
    before = plot.TITLES_PX + (graphs[0].start_ns - 2471.4e6) / 1.7e6 * 1200 - 5  # 5 px left of the first launch
    assert navy not in {image.getpixel((round(before), y)) for y in range(image.size[1])}


def test_svg_is_xml_with_every_row_title():
    t = _graph_timeline()
    root = ET.fromstring(canvas.svg_text(plot.draw(t)))
    texts = [e.text for e in root.iter("{http://www.w3.org/2000/svg}text")]
    assert all(lane.title in texts for lane in t.lanes)
    assert "time (ms, profile clock)" in texts and "cudaDeviceSynchronize_v3020" in texts


@pytest.mark.parametrize("width", [5, 20, 60, 150, 300, 2000])
def test_labels_are_cut_to_their_box(width):
    name = "ampere_sgemm_128x64_nn_splitK"
    shown = canvas.fit(name, width, plot.LABEL_PX)
    assert canvas.text_width(shown, plot.LABEL_PX) <= width
    assert shown == name or (shown == "" or (shown.endswith("…") and name.startswith(shown[:-1])))
    assert (shown == name) == (width >= 300)  # 29 letters of 7 pt: about 200 px
