"""Publish the asv history and photograph one of its graphs in headless Chromium, offline.

``asv publish`` writes ``.asv/html`` from ``benchmarks/results/asv``; its pages load jQuery, flot, Bootstrap,
stupidtable and md5 from CDNs, which a machine without internet cannot reach. This script points those addresses at
the Debian packages' copies (``libjs-jquery libjs-jquery-flot libjs-bootstrap libjs-jquery-stupidtable
node-blueimp-md5``, copied into ``.asv/html/vendor``), serves the folder on 127.0.0.1 and writes a PNG of the graph
named by ``--graph`` (asv's address of one benchmark and its parameters). From the repository root, with
``chromium`` installed::

    python -m benchmarks.studies.asv_screenshot                    # docs/asv_history.png
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from benchmarks.studies.util import ROOT

HTML = ROOT / ".asv" / "html"
JS = Path("/usr/share/javascript")
#: each CDN script or sheet of asv's index.html -> its Debian copy (None: dropped; flot's bar-order plugin has no
#: Debian package and only the bar charts of parameterized views use it)
VENDOR = {
    r"jquery-[\d.]+\.min\.js": JS / "jquery" / "jquery.min.js",
    r"jquery\.flot\.min\.js": JS / "jquery-flot" / "jquery.flot.pack.js",  # flot 4: the core with its plugins
    r"jquery\.flot\.time\.min\.js": None,
    r"jquery\.flot\.selection\.min\.js": None,
    r"jquery\.flot\.categories\.min\.js": None,
    r"jquery\.flot\.orderBars\.js": None,
    r"stupidtable\.min\.js": JS / "jquery-stupidtable" / "stupidtable.min.js",
    r"md5\.min\.js": JS / "blueimp-md5" / "md5.min.js",
    r"bootstrap\.min\.js": JS / "bootstrap" / "js" / "bootstrap.min.js",
    r"bootstrap\.min\.css": JS / "bootstrap" / "css" / "bootstrap.min.css",
}
GRAPH = "#bench_kernels.GramAssembly.time_gram?p-kernel='linear'&p-m=4000&p-d=10&x-axis-scale=even"
#: the flags that keep Chromium from reaching for the network it does not have
CHROMIUM = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def localize(html: Path = HTML) -> None:
    """Point the CDN addresses of ``index.html`` at copies under ``vendor/``."""
    index = html / "index.html"
    text = index.read_text(encoding="utf-8")
    (html / "vendor").mkdir(exist_ok=True)
    for tag in re.findall(r"<(?:script|link)[^>]*(?:src|href)=\"https?://[^\"]+\"[^>]*>(?:</script>)?", text):
        url = re.search(r"(?:src|href)=\"(https?://[^\"]+)\"", tag).group(1)
        target = next((path for pattern, path in VENDOR.items() if re.search(pattern, url)), "unknown")
        if target == "unknown":
            raise SystemExit(f"asv's index.html loads {url}, which has no local copy in VENDOR")
        if target is None:
            text = text.replace(tag, "")
            continue
        shutil.copy(target, html / "vendor" / target.name)
        # the CDN file's subresource-integrity hash would refuse the Debian copy
        local = re.sub(r'\s(?:integrity|crossorigin|referrerpolicy)="[^"]*"', "", tag)
        text = text.replace(tag, local.replace(url, f"vendor/{target.name}"))
    index.write_text(text, encoding="utf-8")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def screenshot(out: Path, graph: str = GRAPH, size: str = "1400,900", wait_ms: int = 15000) -> None:
    handler = functools.partial(QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as profile:
            url = f"http://127.0.0.1:{server.server_address[1]}/index.html{graph}"
            subprocess.run(["chromium", *CHROMIUM, f"--user-data-dir={profile}", f"--window-size={size}",
                            f"--virtual-time-budget={wait_ms}", f"--screenshot={out}", url],
                           check=True, capture_output=True, timeout=120)
    finally:
        server.shutdown()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "asv_history.png")
    ap.add_argument("--graph", default=GRAPH, help="asv's address of the graph (after index.html)")
    args = ap.parse_args(argv)
    subprocess.run([sys.executable, "-m", "asv", "publish"], cwd=ROOT, check=True, capture_output=True)
    localize()
    screenshot(args.out.resolve(), args.graph)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
