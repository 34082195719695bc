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
  // the nearest ancestor that scrolls (JupyterLab's notebook panel); none in Voila's page,
  // whose containers grow with their content
  for (let node = el.parentElement; node; node = node.parentElement) {
    const style = getComputedStyle(node);
    const scrolls = /(auto|scroll)/.test(style.overflowY);
    if (scrolls && node.clientHeight > 0 && node.scrollHeight > node.clientHeight + 1) return node;
  }
  return null;
}
// The server stopped (Ctrl-C on `bpe-course explore`, JupyterLab shut down): the page would go on
// saying "measuring: 0 of 14" with cancel enabled. A file the page itself loaded is asked for
// every few seconds; once the server no longer answers, the controls are disabled and the status
// says what happened.
function watchServer(el, model) {
  const own = [...document.querySelectorAll('script[src]')].map(s => s.src)
    .find(src => src.startsWith(location.origin + '/'));
  if (!own) return () => {};
  const timer = setInterval(async () => {
    try {
      await fetch(own, { method: 'HEAD', cache: 'no-store' });
    } catch (error) {  // no answer at all: an HTTP error still means a server is there
      clearInterval(timer);
      const root = el.closest('.' + model.get('root_class'));
      if (!root) return;
      root.classList.add('bpe-server-stopped');
      root.querySelectorAll('button, input, select, textarea').forEach(c => { c.disabled = true; });
      const status = root.querySelector('.' + model.get('status_class'));
      const text = model.get('stopped_text');
      if (status) { status.textContent = text; status.title = text; }
    }
  }, model.get('watch_ms'));
  return () => clearInterval(timer);
}
function render({ model, el }) {
  el.style.height = '0px';
  const unwatch = watchServer(el, model);
  const measure = () => {
    const root = el.closest('.' + model.get('root_class'));
    if (!root) return;
    const below = root.querySelector('.' + model.get('below_class')) || root;
    const area = scroller(root);
    const visible = area ? Math.min(area.clientHeight, window.innerHeight) : window.innerHeight;
    // counted from the top of the page when the widget starts near it (Voila: its heading is
    // on the screen too), else from the widget's own top (a notebook scrolled to it)
    const contentTop = area ? area.getBoundingClientRect().top - area.scrollTop : -window.scrollY;
    const rootTop = root.getBoundingClientRect().top;
    const start = rootTop - contentTop < visible / 4 ? contentTop : rootTop;
    const offset = below.getBoundingClientRect().top - start;
    const width = Math.round(root.getBoundingClientRect().width);
    const height = Math.round(visible - offset);
    el.dataset.reported = width + 'x' + height;  // for a test to read
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
  return () => {
    observer.disconnect();
    window.removeEventListener('resize', measure);
    unwatch();
  };
}
export default { render };
"""


class WindowSize(anywidget.AnyWidget):
    """``width``: of the element marked ``root_class``; ``height``: from the top of the element
    marked ``below_class`` to the bottom of the visible page (pixels; 0 until a browser shows it).
    It also watches the server: see ``stopped_text``."""

    _esm = _ESM
    root_class = traitlets.Unicode("bpe-explorer").tag(sync=True)
    below_class = traitlets.Unicode("bpe-explorer-figure").tag(sync=True)
    width = traitlets.Int(0).tag(sync=True)
    height = traitlets.Int(0).tag(sync=True)
    # what the element marked ``status_class`` says once the server stops answering (asked
    # every ``watch_ms``), when every control under ``root_class`` is disabled
    status_class = traitlets.Unicode("bpe-explorer-status").tag(sync=True)
    stopped_text = traitlets.Unicode(
        "the server behind this page has stopped: nothing more is measured or drawn. Start it "
        "again (bpe-course explore, or JupyterLab for notebook 11) and reload the page."
    ).tag(sync=True)
    watch_ms = traitlets.Int(3000).tag(sync=True)
