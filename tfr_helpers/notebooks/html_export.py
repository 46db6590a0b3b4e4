"""HTML export of executed notebooks that works offline: the widget JavaScript is served from the run directory.

nbconvert's HTML loads require.js from cdnjs and the widget manager (``@jupyter-widgets/html-manager``'s
``embed-amd.js``) from unpkg, and MathJax from cdnjs, so an export opened without network shows no widget.
Here the two widget files come from pinned npm tarballs (``npm pack``, checked against the sha512 pinned
below, kept in ``<cache>/widget-js``), are copied to ``<notebooks>/_static/`` next to the exported HTML and
referenced by relative URLs. MathJax and mermaid.js (also CDN) are left out: the series renders no TeX and
no diagram. A small script of our own makes
the case browser's Previous/Next buttons step the attempt list in the page, where no kernel runs them.

Without npm and without a cached tarball the export still works online (CDN URLs) and says how to fix it.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import io
import json
import logging
import shutil
import subprocess
import tarfile
import threading
from dataclasses import dataclass
from pathlib import Path

from tfr_helpers.errors import TfrError
from tfr_helpers.launch import cache_root

log = logging.getLogger(__name__)

STATIC_DIR = "_static"
"""Directory next to the exported HTML files that holds the widget JavaScript they load."""
_INSTALLING = threading.Lock()
"""Held while the widget JavaScript is installed: ``tfr run`` exports two notebooks at once."""


@dataclass(frozen=True)
class NpmAsset:
    """Files taken from one pinned npm package tarball."""

    package: str
    version: str
    integrity: str
    """Subresource-integrity string (sha512) of the registry tarball, as ``npm view <pkg>@<v> dist.integrity``."""
    files: tuple[tuple[str, str], ...]
    """(glob pattern relative to the tarball's ``package/``, directory under ``_static/`` to copy matches to)."""

    @property
    def spec(self) -> str:
        """``name@version`` as npm takes it."""
        return f"{self.package}@{self.version}"

    @property
    def tarball(self) -> str:
        """The file name ``npm pack`` writes."""
        return f"{self.package.lstrip('@').replace('/', '-')}-{self.version}.tgz"


HTML_MANAGER = NpmAsset(
    "@jupyter-widgets/html-manager",
    "1.0.15",  # the ipywidgets 8 manager (widget state version 2)
    "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
    # embed-amd.js loads its Font Awesome fonts relative to the require.js URL of its @jupyter-widgets/*
    # modules, i.e. <baseUrl>/@jupyter-widgets/; every browser the export targets takes woff2
    (("dist/embed-amd.js", ""), ("dist/*.woff2", "@jupyter-widgets")),
)
REQUIREJS = NpmAsset(
    "requirejs",
    "2.3.8",
    "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
    (("require.js", ""),),
)
WIDGET_ASSETS = (HTML_MANAGER, REQUIREJS)

STEP_SCRIPT = """<script>
/* tfr: Previous/Next of a widget stepper (.tfr-stepper) move its list (.tfr-steps select) by one.
   In a live kernel Python does this; in a static export nothing else would. */
document.addEventListener("click", function (event) {
  var button = event.target.closest(".tfr-stepper .tfr-prev, .tfr-stepper .tfr-next");
  if (!button) { return; }
  var select = button.closest(".tfr-stepper").querySelector(".tfr-steps select");
  if (!select || !select.options.length) { return; }
  var delta = button.classList.contains("tfr-next") ? 1 : -1;
  var index = Math.max(0, Math.min(select.options.length - 1, select.selectedIndex + delta));
  if (index !== select.selectedIndex) {
    select.selectedIndex = index;
    select.dispatchEvent(new Event("change", {bubbles: true}));
  }
});
</script>"""

REPORT_CSS = """<style>
/* tfr: no output wider than the page: wide tables scroll in their own box, text wraps between words */
.jp-OutputArea-output { max-width: 100%; overflow-x: auto; }
.jp-RenderedHTMLCommon pre, .jp-OutputArea-output pre { white-space: pre-wrap; overflow-wrap: break-word; }
.jp-RenderedImage img { max-width: 100%; height: auto; }
</style>"""
REMOVED_CELL_TAGS = frozenset({"parameters", "injected-parameters", "remove_cell"})
"""Cells left out of the HTML report: the declared parameters (their ~70 lines document the keys), papermill's
injected values (the report's "Run details" at its end show the validated configuration) and any cell a notebook
tags ``remove_cell``."""
REMOVED_INPUT_TAGS = frozenset({"remove_input"})
"""Cells whose code is left out of the HTML report, their output kept: the notebooks tag their set-up and
stage-running cells so, and a report's first screen holds the question, the sources and the first result."""

OFFLINE_TEMPLATE = (
    "{%- extends 'lab/index.html.j2' -%}\n"
    "{% block extra_css %}" + REPORT_CSS + "{% endblock extra_css %}\n"
    "{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}\n"
    "{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}\n"
    "{%- block html_head_js_requirejs -%}{{ super() }}{% if resources.tfr_static %}\n"
    '<script>require.config({baseUrl: "{{ resources.tfr_static }}/"});</script>{% endif %}'
    "{%- endblock html_head_js_requirejs -%}\n"
    "{% block footer_js %}" + STEP_SCRIPT + "{% endblock footer_js %}\n"
)


class WidgetAssetsError(TfrError):
    """The widget JavaScript for offline exports could not be obtained or failed its check."""


def assets_cache() -> Path:
    """Where verified npm tarballs are kept: ``$TFR_CACHE_DIR/widget-js`` or the user cache's ``tfr/widget-js``."""
    return cache_root() / "widget-js"


def sri(data: bytes) -> str:
    """The sha512 subresource-integrity string of ``data`` (the form npm records)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def fetch_tarball(asset: NpmAsset, cache: Path) -> bytes:
    """The asset's tarball, from ``cache`` or ``npm pack`` into it, checked against the pinned integrity.

    Raises:
        WidgetAssetsError: npm is missing or failed, or the tarball does not match the pinned integrity.
    """
    path = cache / asset.tarball
    if not path.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise WidgetAssetsError(
                f"npm not found and {path} is not cached: install npm (apt-get install npm) or put the tarball "
                f"there (`npm pack {asset.spec} --pack-destination {cache}` on a machine with npm)."
            )
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "pack", asset.spec, "--pack-destination", str(cache), "--silent"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or not path.is_file():
            raise WidgetAssetsError(
                f"`npm pack {asset.spec}` failed (exit {done.returncode}): {done.stderr.strip()[-500:]}. "
                "Check that the npm registry is reachable (npm config get registry)."
            )
    data = path.read_bytes()
    if sri(data) != asset.integrity:
        path.unlink()
        raise WidgetAssetsError(
            f"{path} does not match the pinned integrity of {asset.spec} ({sri(data)[:30]}... != "
            f"{asset.integrity[:30]}...); the file was removed, the next export downloads it again."
        )
    return data


def install_widget_assets(target: Path, cache: Path | None = None) -> Path:
    """Copy the widget JavaScript into ``target/_static`` (unless already there) and return that directory.

    Raises:
        WidgetAssetsError: see :func:`fetch_tarball`.
    """
    static = target / STATIC_DIR
    manifest = static / "SOURCES.json"
    wanted = {a.spec: {"integrity": a.integrity, "files": [list(f) for f in a.files]} for a in WIDGET_ASSETS}
    if manifest.is_file() and json.loads(manifest.read_text()) == wanted:
        return static
    cache = cache or assets_cache()
    tarballs = [fetch_tarball(asset, cache) for asset in WIDGET_ASSETS]
    static.mkdir(parents=True, exist_ok=True)
    for asset, data in zip(WIDGET_ASSETS, tarballs, strict=True):
        _extract(data, asset, static)
    manifest.write_text(json.dumps(wanted, indent=1) + "\n")
    return static


def _extract(data: bytes, asset: NpmAsset, static: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        found: set[str] = set()
        for member in tar.getmembers():
            rel = member.name.removeprefix("package/")
            match = next(((p, d) for p, d in asset.files if fnmatch.fnmatch(rel, p)), None)
            if match is None or not member.isfile():
                continue
            found.add(match[0])
            source = tar.extractfile(member)
            assert source is not None  # a regular file
            target = static / match[1] / Path(rel).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    if missing := {p for p, _ in asset.files} - found:
        raise WidgetAssetsError(f"{asset.spec} has no {sorted(missing)}: the pinned package changed its layout.")


def export_html(notebook: Path) -> Path:
    """Export an executed notebook to HTML next to it (widget state included) and return the path.

    The page loads its widget JavaScript from ``_static/`` beside it (see the module docstring); if that
    JavaScript cannot be obtained, it loads it from the CDNs and a warning says why. Cells tagged as in
    :data:`REMOVED_CELL_TAGS` are left out, the code of those in :data:`REMOVED_INPUT_TAGS`; papermill's
    papermill's injected parameters are left out too, and the absolute paths of the run, the project and the
    home directory are shown relative (:func:`tfr_helpers.views.run_details.mask_paths`).
    """
    from jinja2 import DictLoader  # the notebook stack (nbconvert) loads only for an HTML export
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    from tfr_helpers.views.run_details import mask_paths  # the views package loads pandas: not at ``tfr`` start

    exporter = HTMLExporter(extra_loaders=[DictLoader({"tfr_offline.html.j2": OFFLINE_TEMPLATE})])
    exporter.template_file = "tfr_offline.html.j2"
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_cell_tags=set(REMOVED_CELL_TAGS), remove_input_tags=set(REMOVED_INPUT_TAGS)),
        enabled=True,
    )
    resources = {}
    try:
        with _INSTALLING:
            install_widget_assets(notebook.parent)
        exporter.require_js_url = f"{STATIC_DIR}/require.js"
        exporter.widget_renderer_url = f"{STATIC_DIR}/embed-amd.js"
        resources["tfr_static"] = STATIC_DIR  # require.js resolves the widget modules (and their fonts) there
    except WidgetAssetsError as exc:
        log.warning("%s: its widgets load from the CDN (needs network): %s", notebook.name, exc)
    body, _ = exporter.from_filename(str(notebook), resources=resources)
    body = mask_paths(body, _injected_run_dir(notebook))
    target = notebook.with_suffix(".html")
    target.write_text(body, encoding="utf-8")
    return target


def _injected_run_dir(notebook: Path) -> str | None:
    """The ``run_dir`` papermill injected into an executed notebook (None when it has none)."""
    try:
        meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return None
    value = meta.get("papermill", {}).get("parameters", {}).get("run_dir")
    return str(value) if value else None
