"""``browser`` checks: headless Chromium through Playwright on the running app, with screenshot and action log.

Playwright drives the system Chromium (Debian's ``chromium`` package) through ``executable_path``; no browser is
downloaded. ``ICAE_CHROMIUM`` overrides the executable. Install the Python side with
``pip install "icae-env[browser]"``.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import threading
from pathlib import Path
from typing import Any

from icae_env.errors import DependencyNotInstalled, IcaeEnvError
from icae_env.revision.app import AppStartError, app_log, running_app
from icae_env.revision.check_models import BrowserAction, BrowserCheck, BrowserExpect
from icae_env.revision.checks.common import CheckContext, CheckOutcome, fresh_copy, match_text, short

__all__ = [
    "BrowserSession",
    "BrowserNotFound",
    "chromium_path",
    "descendant_pids",
    "kill_renderers",
    "run_browser_check",
]

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_ACTION_TIMEOUT_MS = 2000
# Computed styles are read through the browser's own functions, captured before any page script runs and bound to a
# property the page can neither overwrite nor redefine, so a page cannot fake a style by patching getComputedStyle.
_STYLE_PROBE = "__icaeComputedStyle"
_STYLE_PROBE_SCRIPT = f"""(() => {{
  const apply = Reflect.apply, style = window.getComputedStyle, value = CSSStyleDeclaration.prototype.getPropertyValue;
  Object.defineProperty(window, "{_STYLE_PROBE}", {{
    value: (element, property) => apply(value, apply(style, window, [element]), [property]),
    writable: false, configurable: false, enumerable: false,
  }});
}})();"""
_LOAD_TIMEOUT_MS = 15000


class BrowserNotFound(IcaeEnvError, RuntimeError):
    """No Chromium executable was found for browser checks."""


def chromium_path() -> str:
    """Return the Chromium executable (``$ICAE_CHROMIUM`` or the first of chromium/chrome on PATH).

    Raises:
        BrowserNotFound: when there is none.
    """
    override = os.environ.get("ICAE_CHROMIUM")
    if override:
        if not os.access(override, os.X_OK):
            raise BrowserNotFound(f"ICAE_CHROMIUM={override!r} is not an executable file")
        return override
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFound(
        "browser checks need Chromium: install Debian's package (`apt-get install chromium`) or set ICAE_CHROMIUM"
    )


class BrowserSession:
    """One headless Chromium shared by the browser checks of a grading run (started on first use)."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    def browser(self) -> Any:
        """Return the running browser, starting it on first use.

        Raises:
            DependencyNotInstalled: when Playwright is missing.
            BrowserNotFound: when Chromium is missing.
        """
        if self._browser is None:
            try:
                from playwright.sync_api import sync_playwright
            except ImportError as exc:
                raise DependencyNotInstalled("playwright", "browser") from exc
            executable = chromium_path()
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=executable, headless=True, args=["--no-sandbox", "--no-proxy-server"]
            )
        return self._browser

    def close(self) -> None:
        """Stop the browser; safe to call twice."""
        browser, playwright, self._browser, self._playwright = self._browser, self._playwright, None, None
        if browser is not None:
            browser.close()
        if playwright is not None:
            playwright.stop()


def descendant_pids(root: int) -> list[int]:
    """Return the pids of every process below ``root`` (from ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_renderers() -> int:
    """Kill the Chromium renderer processes under this process (a page stuck in a script loop); return how many.

    Playwright calls that evaluate in a busy page have no time-out of their own; a killed renderer makes them fail
    with "Target crashed" while the browser itself stays usable.
    """
    killed = 0
    for pid in descendant_pids(os.getpid()):
        try:
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
                killed += 1
        except (OSError, ProcessLookupError):
            continue
    return killed


def _only_the_app(base: str, log: list[str], route: Any) -> None:
    """Let requests to the app through; block every other destination (the page runs agent code on the host)."""
    url = route.request.url
    if url == base or url.startswith(base + "/") or url.startswith(("data:", "blob:", "about:")):
        route.continue_()
    else:
        log.append(f"[blocked] {route.request.method} {url[:200]}")
        route.abort()


def _fire(fired: threading.Event) -> None:
    fired.set()
    kill_renderers()


def _act(page: Any, base: str, action: BrowserAction) -> None:
    if action.do == "click":
        page.click(action.selector)
    elif action.do == "type":
        page.fill(action.selector, action.text)
    elif action.do == "press":
        page.press(action.selector, action.key)
    elif action.do == "select":
        page.select_option(action.selector, action.value)
    elif action.do == "check":
        page.check(action.selector)
    elif action.do == "uncheck":
        page.uncheck(action.selector)
    elif action.do == "goto":
        page.goto(base + (action.path or "/"), wait_until="load")
    elif action.selector is not None:
        page.wait_for_selector(action.selector)
    else:
        page.wait_for_timeout(action.ms)


def _describe(action: BrowserAction) -> str:
    fields = action.model_dump(exclude_none=True, exclude={"do"})
    return action.do + "".join(f" {k}={v!r}" for k, v in fields.items())


def _expectation(page: Any, expect: BrowserExpect) -> tuple[bool, str]:
    locator = page.locator(expect.selector)
    count = locator.count()
    label = expect.selector
    if expect.count is not None:
        return (count == expect.count, f"{label}: {count} element(s) (expected {expect.count})")
    if count == 0:
        return (expect.visible is False, f"{label}: no element matches")
    first = locator.first
    problems = []
    if expect.visible is not None and first.is_visible() != expect.visible:
        problems.append(f"visible is {not expect.visible} (expected {expect.visible})")
    if expect.text is not None:
        text = " ".join((first.text_content() or "").split())
        ok, detail = match_text(text, expect.text)
        problems += [] if ok else [f"text: {detail}"]
    if expect.attribute is not None:
        value = first.get_attribute(expect.attribute)
        if expect.value is None:
            problems += [] if value is None else [f"attribute {expect.attribute} is {short(value)} (expected absent)"]
        else:
            ok, detail = match_text(value if value is not None else "", expect.value)
            problems += [] if ok and value is not None else [f"attribute {expect.attribute}: {detail}"]
    if expect.style is not None and expect.value is not None:
        value = first.evaluate(f"(e, p) => window.{_STYLE_PROBE}(e, p)", expect.style)
        ok, detail = match_text(str(value), expect.value)
        problems += [] if ok else [f"style {expect.style}: {detail}"]
    return (not problems, f"{label}: " + ("; ".join(problems) if problems else "as expected"))


def _run_page(page: Any, base: str, check: BrowserCheck, outcome: CheckOutcome, log: list[str]) -> None:
    page.on("pageerror", lambda error: log.append(f"[page error] {error}"))
    page.on("console", lambda msg: log.append(f"[console.{msg.type}] {msg.text}") if msg.type == "error" else None)
    page.goto(base + check.path, wait_until="load")
    log.append(f"[ok] goto {check.path}")
    page.on(  # navigations the page makes by itself from here on
        "framenavigated", lambda frame: log.append(f"[navigated] {frame.url}") if frame is page.main_frame else None
    )
    for action in check.actions:
        try:
            _act(page, base, action)
            log.append(f"[ok] {_describe(action)}")
        except Exception as exc:  # noqa: BLE001 - Playwright's errors are the agent's page failing, logged
            failure = f"{_describe(action)}: {str(exc).splitlines()[0]}"
            log.append(f"[failed] {failure}")
            outcome.error = f"the recorded action could not be performed: {failure}"  # no credit for the rest
            break
    for expect in check.expect:
        try:
            outcome.add(*_expectation(page, expect))
        except Exception as exc:  # noqa: BLE001
            outcome.add(False, f"{expect.selector}: {str(exc).splitlines()[0]}")


def _page_with_evidence(
    context: Any, base: str, check: BrowserCheck, outcome: CheckOutcome, log: list[str], ctx: CheckContext
) -> None:
    page = context.new_page()
    try:
        _run_page(page, base, check, outcome, log)
    except Exception as exc:  # noqa: BLE001 - the page did not load
        outcome.error = f"the page did not load: {str(exc).splitlines()[0]}"
        log.append(f"[failed] {outcome.error}")
    try:
        page.screenshot(path=str(ctx.evidence / "screenshot.png"), full_page=True)
        outcome.evidence.append("screenshot.png")
    except Exception as exc:  # noqa: BLE001 - a hung page cannot be photographed; the verdict is then invalid
        log.append(f"[failed] screenshot: {str(exc).splitlines()[0]}")


def run_browser_check(check: BrowserCheck, ctx: CheckContext) -> CheckOutcome:
    """Start the app, load ``check.path``, perform the actions, test the page; save a screenshot and action log."""
    outcome = CheckOutcome()
    log: list[str] = []
    assert ctx.task.app is not None  # noqa: S101 - the task model guarantees an app for browser checks
    if ctx.browser is None:
        ctx.browser = BrowserSession()
    browser = ctx.browser.browser()
    with fresh_copy(ctx) as box:
        try:
            with running_app(box, ctx.task.app) as base:
                context = browser.new_context(viewport={"width": check.viewport[0], "height": check.viewport[1]})
                context.set_default_timeout(_ACTION_TIMEOUT_MS)
                context.set_default_navigation_timeout(_LOAD_TIMEOUT_MS)
                context.add_init_script(_STYLE_PROBE_SCRIPT)
                context.route("**/*", functools.partial(_only_the_app, base, log))
                fired = threading.Event()
                watchdog = threading.Timer(check.timeout_s, functools.partial(_fire, fired))
                watchdog.start()
                try:
                    _page_with_evidence(context, base, check, outcome, log, ctx)
                finally:
                    watchdog.cancel()
                    if fired.is_set():
                        hung = f"the page stopped responding; its renderer was killed after {check.timeout_s:g} s"
                        log.append(f"[failed] {hung}")
                        outcome.error = outcome.error or hung
                    context.close()
        except AppStartError as exc:
            outcome.error = str(exc)
            log.append(f"[failed] {exc}")
        finally:
            (ctx.evidence / "app.log").write_text(app_log(box, 20_000), encoding="utf-8")
    (ctx.evidence / "actions.log").write_text("\n".join(log) + "\n", encoding="utf-8")
    outcome.evidence += ["actions.log", "app.log"]
    return outcome
