"""The global shortcut on Wayland: the desktop portal's GlobalShortcuts interface.

Over D-Bus with jeepney (already in the app through SecretStorage; QtDBus is not
bundled). The portal answers each request later, with a ``Response`` signal on a
request object, so everything here is message-driven: :class:`PortalShortcut`
sends, and :meth:`PortalShortcut.handle` takes each message from the bus; the
caller reads the socket when it is readable (:meth:`PortalShortcut.read`). No Qt.

CreateSession -> Response(session_handle) -> BindShortcuts(quick-ask, preferred
trigger) -> Response(shortcuts) -> "registered"; ``Activated`` signals afterwards.
The desktop may ask the user to confirm or pick another trigger: it decides.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
from collections.abc import Callable
from typing import Any

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_call
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection

log = logging.getLogger(__name__)

PORTAL_NAME = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS_IFACE = "org.freedesktop.portal.GlobalShortcuts"
REQUEST_IFACE = "org.freedesktop.portal.Request"
SESSION_IFACE = "org.freedesktop.portal.Session"
SHORTCUT_ID = "quick-ask"

portal = DBusAddress(PORTAL_PATH, bus_name=PORTAL_NAME, interface=SHORTCUTS_IFACE)
Reply = Callable[[Message], None]
Response = Callable[[int, dict[str, tuple[str, Any]]], None]


def request_path(unique_name: str, token: str) -> str:
    """Where the portal puts the answer to a request made with ``handle_token``."""
    sender = unique_name.lstrip(":").replace(".", "_")
    return f"{PORTAL_PATH}/request/{sender}/{token}"


def version_call() -> Message:
    props = DBusAddress(PORTAL_PATH, bus_name=PORTAL_NAME,
                        interface="org.freedesktop.DBus.Properties")
    return new_method_call(props, "Get", "ss", (SHORTCUTS_IFACE, "version"))


def create_session_call(token: str) -> Message:
    return new_method_call(portal, "CreateSession", "a{sv}", (
        {"handle_token": ("s", token), "session_handle_token": ("s", token)},))


def bind_shortcuts_call(session: str, token: str, description: str, trigger: str) -> Message:
    shortcut = (SHORTCUT_ID, {"description": ("s", description),
                              "preferred_trigger": ("s", trigger)})
    return new_method_call(portal, "BindShortcuts", "oa(sa{sv})sa{sv}", (
        session, [shortcut], "", {"handle_token": ("s", token)}))


def close_session_call(session: str) -> Message:
    return new_method_call(DBusAddress(session, bus_name=PORTAL_NAME, interface=SESSION_IFACE),
                           "Close")


def bound_trigger(results: dict[str, tuple[str, Any]]) -> str:
    """The trigger the desktop bound to the quick-ask shortcut, as it describes it."""
    for shortcut_id, props in results.get("shortcuts", ("", []))[1]:
        if shortcut_id == SHORTCUT_ID:
            return str(props.get("trigger_description", ("s", ""))[1])
    return ""


class PortalShortcut:
    """One connection to the session bus and one portal session with one shortcut.

    ``on_status(status, detail)``: "registered" (detail: the trigger as the desktop
    describes it), "cancelled" (the user said no), "unavailable" (no portal, or
    one without GlobalShortcuts; detail: why). ``on_activated()``: pressed.
    """

    def __init__(self, on_status: Callable[[str, str], None],
                 on_activated: Callable[[], None], bus: str = "SESSION") -> None:
        self.on_status = on_status
        self.on_activated = on_activated
        self.conn: DBusConnection | None = open_dbus_connection(bus, auth_timeout=2.0)
        self.unique_name = str(self.conn.unique_name)
        self.serials = itertools.count(1000)  # (Hello took the first ones)
        self.replies: dict[int, Reply] = {}
        self.requests: dict[str, Response] = {}  # request object path -> Response handler
        self.tokens = itertools.count(1)
        self.session: str | None = None
        self.description = ""
        self.trigger = ""
        # (only the portal's signals: the bus matches its name to whoever owns it)
        for rule in (MatchRule(type="signal", sender=PORTAL_NAME, interface=REQUEST_IFACE,
                               member="Response"),
                     MatchRule(type="signal", sender=PORTAL_NAME, interface=SHORTCUTS_IFACE,
                               member="Activated")):
            self.send(message_bus.AddMatch(rule))

    def fileno(self) -> int:
        return self.conn.sock.fileno() if self.conn is not None else -1

    def send(self, message: Message, on_reply: Reply | None = None) -> None:
        if self.conn is None:
            return
        serial = next(self.serials)
        if on_reply is not None:
            self.replies[serial] = on_reply
        self.conn.send(message, serial=serial)

    def bind(self, description: str, trigger: str) -> None:
        """Ask for the shortcut (again: a new session replaces the old one)."""
        self.description, self.trigger = description, trigger
        if self.session is not None:
            self.send(close_session_call(self.session))
            self.session = None
        self.send(version_call(), self._have_version)

    def _have_version(self, reply: Message) -> None:
        if reply.header.message_type == MessageType.error:
            self.on_status("unavailable", str(reply.header.fields.get(HeaderFields.error_name)))
            return
        token = f"assista{next(self.tokens)}"
        self.requests[request_path(self.unique_name, token)] = self._session_created
        self.send(create_session_call(token), self._check_call)

    def _check_call(self, reply: Message) -> None:
        if reply.header.message_type == MessageType.error:
            error = reply.header.fields.get(HeaderFields.error_name, "")
            self.on_status("unavailable", f"{error}: {reply.body[0] if reply.body else ''}")

    def _session_created(self, response: int, results: dict[str, tuple[str, Any]]) -> None:
        if response != 0:
            self.on_status("cancelled" if response == 1 else "unavailable",
                           "the desktop refused a shortcut session")
            return
        self.session = str(results.get("session_handle", ("o", ""))[1])
        token = f"assista{next(self.tokens)}"
        self.requests[request_path(self.unique_name, token)] = self._bound
        self.send(bind_shortcuts_call(self.session, token, self.description, self.trigger),
                  self._check_call)

    def _bound(self, response: int, results: dict[str, tuple[str, Any]]) -> None:
        if response == 0:
            self.on_status("registered", bound_trigger(results) or self.trigger)
        else:
            self.on_status("cancelled" if response == 1 else "unavailable",
                           "the desktop did not bind the shortcut")

    def handle(self, message: Message) -> None:
        header = message.header
        if header.message_type in (MessageType.method_return, MessageType.error):
            on_reply = self.replies.pop(header.fields.get(HeaderFields.reply_serial, -1), None)
            if on_reply is not None:
                on_reply(message)
            return
        if header.message_type != MessageType.signal:
            return
        member = header.fields.get(HeaderFields.member)
        if member == "Response" and header.fields.get(HeaderFields.interface) == REQUEST_IFACE:
            handler = self.requests.pop(str(header.fields.get(HeaderFields.path)), None)
            if handler is not None:
                response, results = message.body
                handler(int(response), results)
        elif member == "Activated" and header.fields.get(HeaderFields.interface) == \
                SHORTCUTS_IFACE:
            session, shortcut_id = message.body[0], message.body[1]
            if session == self.session and shortcut_id == SHORTCUT_ID:
                self.on_activated()

    def read(self) -> bool:
        """Take what the bus sent (the socket is readable); False once it is closed."""
        if self.conn is None:
            return False
        try:
            data = self.conn.sock.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True
        except OSError as exc:
            log.warning("the session bus connection failed: %s", exc)
            data = b""
        if not data:
            self.close()
            self.on_status("unavailable", "the session bus closed the connection")
            return False
        self.conn.parser.add_data(data)
        while (message := self.conn.parser.get_next_message()) is not None:
            self.handle(message)
        return True

    def close(self) -> None:
        if self.conn is not None:
            if self.session is not None:
                with contextlib.suppress(OSError):
                    self.send(close_session_call(self.session))
            self.conn.close()
            self.conn = None
