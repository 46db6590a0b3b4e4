"""The offline HTML export: pinned, verified widget JavaScript in ``_static/``; clear errors and a CDN fallback."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import ipywidgets as W
import nbformat
import pytest
from ipywidgets.embed import dependency_state
from nbformat.v4 import new_code_cell, new_notebook, new_output

from tests.helpers.env import require_executable
from tfr_helpers.notebooks.html_export import (
    HTML_MANAGER,
    REQUIREJS,
    STATIC_DIR,
    WidgetAssetsError,
    assets_cache,
    export_html,
    fetch_tarball,
    install_widget_assets,
    sri,
)


def _widget_notebook(path: Path) -> Path:
    """An executed-looking notebook whose one output is an ipywidgets Button (state stored as papermill does)."""
    button = W.Button(description="Next")
    cell = new_code_cell("button")
    cell.outputs = [
        new_output(
            "display_data",
            data={"application/vnd.jupyter.widget-view+json": {"model_id": button.model_id, "version_major": 2}},
        )
    ]
    nb = new_notebook(cells=[cell])
    nb.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {
            "version_major": 2,
            "version_minor": 0,
            "state": dependency_state(button),
        }
    }
    nbformat.write(nb, str(path))
    return path


def _script_sources(html: str) -> list[str]:
    return re.findall(r"""(?:src=|Src = |import\()["']([^"']+)["']""", html)


def test_tampered_tarball_is_rejected_and_removed(tmp_path: Path) -> None:
    cached = tmp_path / REQUIREJS.tarball
    cached.write_bytes(b"not the requirejs tarball")
    with pytest.raises(WidgetAssetsError, match="does not match the pinned integrity of requirejs@2.3.8"):
        fetch_tarball(REQUIREJS, tmp_path)
    assert not cached.exists()


def test_without_npm_or_cache_the_error_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(WidgetAssetsError, match=r"npm not found .*npm pack @jupyter-widgets/html-manager@1\.0\.15"):
        fetch_tarball(HTML_MANAGER, tmp_path / "cache")


def test_export_falls_back_to_the_cdn_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    with caplog.at_level(logging.WARNING, logger="tfr_helpers.notebooks.html_export"):
        html = export_html(_widget_notebook(tmp_path / "w.ipynb")).read_text()
    assert "its widgets load from the CDN" in caplog.text and "npm not found" in caplog.text
    assert any(s.startswith("https://cdnjs.cloudflare.com/") for s in _script_sources(html))
    assert not (tmp_path / STATIC_DIR).exists()


def test_export_serves_verified_widget_js_from_static(tmp_path: Path) -> None:
    require_executable("npm", "apt-get install npm: the export takes the widget manager from the npm registry")
    html_file = export_html(_widget_notebook(tmp_path / "w.ipynb"))
    static = tmp_path / STATIC_DIR
    assert (static / "require.js").is_file() and (static / "embed-amd.js").is_file()
    assert len(list((static / "@jupyter-widgets").glob("*.woff2"))) == 3  # Font Awesome, where require.js puts it
    manifest = json.loads((static / "SOURCES.json").read_text())
    assert {spec: m["integrity"] for spec, m in manifest.items()} == {
        HTML_MANAGER.spec: HTML_MANAGER.integrity,
        REQUIREJS.spec: REQUIREJS.integrity,
    }
    for asset in (HTML_MANAGER, REQUIREJS):
        assert sri((assets_cache() / asset.tarball).read_bytes()) == asset.integrity
    assert 'define("@jupyter-widgets/controls"' in (static / "embed-amd.js").read_text()
    html = html_file.read_text()
    sources = _script_sources(html)
    assert f"{STATIC_DIR}/require.js" in sources and f"{STATIC_DIR}/embed-amd.js" in sources
    assert not [s for s in sources if "://" in s], sources
    assert 'require.config({baseUrl: "_static/"})' in html
    assert "mathjax" not in html.lower() and ".tfr-stepper" in html


def test_a_second_export_reuses_static(tmp_path: Path) -> None:
    require_executable("npm", "apt-get install npm: the export takes the widget manager from the npm registry")
    static = install_widget_assets(tmp_path)
    (static / "embed-amd.js").write_text("// stands in for the real file")
    assert install_widget_assets(tmp_path) == static  # the manifest says it is complete: nothing copied again
    assert (static / "embed-amd.js").read_text() == "// stands in for the real file"
    (static / "SOURCES.json").write_text("{}")  # a manifest of other pins: copied again
    install_widget_assets(tmp_path)
    assert (static / "embed-amd.js").stat().st_size > 1_000_000
