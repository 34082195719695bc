"""The room a widget has in the browser, told to the kernel: the width of the element it sits in
and the height left below a marked element down to the bottom of the visible page.

A kernel cannot see the browser's window, so a figure drawn in Python has a fixed size in pixels
(matplotlib draws pixels). This invisible widget (anywidget: a few lines of JavaScript shipped
from Python, no front-end build) measures in the page and reports whenever the window or the
layout changes, so the explorer can size its figure to the screen it is projected on.
"""

from __future__ import annotations

import anywidget
import traitlets

# Measures the nearest ancestor with class ``root_class`` (its width) and the height from the top
# of the element with class ``below_class`` to the bottom of the scrolling area that shows it
# (JupyterLab's notebook panel, or the page in Voila), and sends them when they change.
_ESM = """
function scroller(el) {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (/(auto|scroll)/.test(style.overflowY) && node.clientHeight > 0) return node;
  }
  return null;
}
function render({ model, el }) {
  el.style.height = '0px';
  const measure = () => {
    const root = el.closest('.' + model.get('root_class'));
    if (!root) return;
    const below = root.querySelector('.' + model.get('below_class')) || root;
    const area = scroller(root);
    const visible = area ? Math.min(area.clientHeight, window.innerHeight) : window.innerHeight;
    const offset = below.getBoundingClientRect().top - root.getBoundingClientRect().top;
    const width = Math.round(root.getBoundingClientRect().width);
    const height = Math.round(visible - offset);
    if (width !== model.get('width') || height !== model.get('height')) {
      model.set('width', width);
      model.set('height', height);
      model.save_changes();
    }
  };
  const observer = new ResizeObserver(() => requestAnimationFrame(measure));
  const watch = () => {
    const root = el.closest('.' + model.get('root_class'));
    if (root) observer.observe(root);
    observer.observe(document.body);
    measure();
  };
  requestAnimationFrame(watch);
  window.addEventListener('resize', measure);
  return () => { observer.disconnect(); window.removeEventListener('resize', measure); };
}
export default { render };
"""


class WindowSize(anywidget.AnyWidget):
    """``width``: of the element marked ``root_class``; ``height``: from the top of the element
    marked ``below_class`` to the bottom of the visible page (pixels; 0 until a browser shows it)."""

    _esm = _ESM
    root_class = traitlets.Unicode("bpe-explorer").tag(sync=True)
    below_class = traitlets.Unicode("bpe-explorer-figure").tag(sync=True)
    width = traitlets.Int(0).tag(sync=True)
    height = traitlets.Int(0).tag(sync=True)
