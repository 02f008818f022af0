"""A private D-Bus session bus and a fake xdg-desktop-portal GlobalShortcuts service on it.

The bus is a real ``dbus-daemon`` with a configuration of its own (no service
directories: nothing on the machine is activated on it). The portal is served with
jeepney on a thread: Properties.Get(version), CreateSession and BindShortcuts answer
with a request path and then a ``Response`` signal there, as the real portal does;
:meth:`FakePortal.press` emits ``Activated`` for the bound session.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

from jeepney import (
    DBusAddress,
    HeaderFields,
    Message,
    MessageType,
    new_error,
    new_method_return,
    new_signal,
)
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"


class PrivateBus:
    def __init__(self, folder: Path) -> None:
        config = folder / "bus.conf"
        config.write_text(BUS_CONFIG.format(dir=folder), encoding="utf-8")
        self.process = subprocess.Popen(
            ["dbus-daemon", "--config-file", str(config), "--nofork", "--print-address"],
            stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.address = self.process.stdout.readline().strip()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


class FakePortal:
    """Serves org.freedesktop.portal.Desktop on ``address`` until :meth:`close`."""

    def __init__(self, address: str, *, refuse_bind: bool = False) -> None:
        self.conn = open_dbus_connection(address)
        reply = self.conn.send_and_get_reply(
            message_bus.RequestName("org.freedesktop.portal.Desktop"), timeout=5)
        assert reply.body == (1,), reply.body  # primary owner
        self.refuse_bind = refuse_bind
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.sessions: list[str] = []
        self.closed_sessions: list[str] = []
        self._press = threading.Event()
        self._stop = threading.Event()
        self._count = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def press(self) -> None:
        self._press.set()

    def _serve(self) -> None:
        while not self._stop.is_set():
            if self._press.is_set() and self.sessions:
                self._press.clear()
                self.conn.send(new_signal(
                    DBusAddress(PORTAL_PATH, interface=SHORTCUTS), "Activated", "osta{sv}",
                    (self.sessions[-1], "quick-ask", 1234, {})))
            try:
                message = self.conn.receive(timeout=0.05)
            except TimeoutError:
                continue
            if message.header.message_type == MessageType.method_call:
                self._answer(message)

    def _answer(self, call: Message) -> None:
        fields = call.header.fields
        member = fields.get(HeaderFields.member)
        self.calls.append((member, call.body))
        if member == "Get":
            self.conn.send(new_method_return(call, "v", (("u", 1),)))
        elif member == "CreateSession":
            options = call.body[0]
            self._count += 1
            session = f"{PORTAL_PATH}/session/test/{options['session_handle_token'][1]}"
            self.sessions.append(session)
            self._respond(call, options["handle_token"][1], 0,
                          {"session_handle": ("s", session)})
        elif member == "BindShortcuts":
            _session, shortcuts, _parent, options = call.body
            bound = [(shortcut_id, {"description": props["description"],
                                    "trigger_description": ("s", "Press Ctrl+Alt+K")})
                     for shortcut_id, props in shortcuts]
            self._respond(call, options["handle_token"][1], 1 if self.refuse_bind else 0,
                          {"shortcuts": ("a(sa{sv})", bound)})
        elif member == "Close":
            self.closed_sessions.append(str(fields.get(HeaderFields.path)))
            self.conn.send(new_method_return(call))
        else:
            self.conn.send(new_error(call, "org.freedesktop.DBus.Error.UnknownMethod"))

    def _respond(self, call: Message, token: str, response: int,
                 results: dict[str, Any]) -> None:
        sender = str(call.header.fields[HeaderFields.sender]).lstrip(":").replace(".", "_")
        path = f"{PORTAL_PATH}/request/{sender}/{token}"
        self.conn.send(new_method_return(call, "o", (path,)))
        self.conn.send(new_signal(DBusAddress(path, interface="org.freedesktop.portal.Request"),
                                  "Response", "ua{sv}", (response, results)))

    def close(self) -> None:
        self._stop.set()
        self.thread.join(timeout=10)
        self.conn.close()
