"""Settings → Tools: what tools may reach beyond their safe defaults — the local or
private hosts ``fetch_url`` may read (``fetch_allow_hosts``) and the environment
variables ``run_command`` passes on (``command_env``)."""

from __future__ import annotations

import ipaddress
import re

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLineEdit, QWidget

from desktop.ui.plain_text import plain_label

_HOST = re.compile(r"^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\*?$")


def split_entries(text: str) -> list[str]:
    """``"a, b  c"`` -> ``["a", "b", "c"]`` (commas or spaces), duplicates dropped."""
    return list(dict.fromkeys(e for e in re.split(r"[\s,]+", text.strip()) if e))


def bad_host(entry: str) -> bool:
    try:
        ipaddress.ip_network(entry.strip("[]"), strict=False)
        return False
    except ValueError:
        return not _HOST.match(entry.lower())


class TrustFields(QWidget):
    def __init__(self, hosts: list[str], env: list[str], parent: QWidget | None = None, *,
                 sandbox: bool = True, network: bool = False) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.sandbox_box = QCheckBox(self.tr("Run commands in a sandbox"))
        self.sandbox_box.setChecked(sandbox)
        self.sandbox_box.setToolTip(self.tr(
            "Commands see the system read-only, may write only in the workspace and a "
            "private temporary folder, and never see this app's data (Linux: bubblewrap; "
            "macOS: sandbox-exec). Without a sandbox on this system they run as you."))
        self.network_box = QCheckBox(self.tr("Let sandboxed commands use the network"))
        self.network_box.setChecked(network)
        self.network_box.setToolTip(self.tr(
            "Off: a command cannot reach the internet or servers on this computer "
            "(downloads, package installs and git push fail)."))
        self.network_box.setEnabled(sandbox)
        self.sandbox_box.toggled.connect(self.network_box.setEnabled)
        form.addRow(self.sandbox_box)
        form.addRow(self.network_box)
        self.hosts_edit = QLineEdit(", ".join(hosts))
        self.hosts_edit.setPlaceholderText(self.tr("e.g. 127.0.0.1, nas.local, .corp.example, "
                                                   "10.0.0.0/8"))
        self.hosts_edit.setAccessibleName(self.tr("Local or private hosts fetch_url may read"))
        self.hosts_edit.setToolTip(self.tr(
            "fetch_url refuses this computer, the local network and cloud metadata "
            "addresses, so a web page cannot make the assistant read them. Hosts, "
            ".domain suffixes, addresses or networks listed here are allowed."))
        self.env_edit = QLineEdit(", ".join(env))
        self.env_edit.setPlaceholderText(self.tr("e.g. JAVA_HOME, NODE_*"))
        self.env_edit.setAccessibleName(self.tr("Environment variables run_command passes on"))
        self.env_edit.setToolTip(self.tr(
            "Commands get a clean environment (PATH, HOME, language...). Name more "
            "variables here, or prefixes ending in *; a prefix never brings in keys, "
            "tokens or passwords."))
        form.addRow(self.tr("Hosts fetch_url may read:"), self.hosts_edit)
        form.addRow(self.tr("Variables for commands:"), self.env_edit)
        self.error = plain_label()
        self.error.setObjectName("approvalError")
        self.error.setWordWrap(True)
        self.error.hide()
        form.addRow(self.error)

    def hosts(self) -> list[str]:
        return split_entries(self.hosts_edit.text())

    def sandbox(self) -> bool:
        return self.sandbox_box.isChecked()

    def network(self) -> bool:
        return self.network_box.isChecked()

    def env(self) -> list[str]:
        return split_entries(self.env_edit.text())

    def problem(self) -> str | None:
        """What is wrong with the entries (shown under them), or None."""
        hosts = [h for h in self.hosts() if bad_host(h)]
        names = [n for n in self.env() if not _ENV.match(n)]
        problem = None
        if hosts:
            problem = self.tr("Not a host, address or network: {entries}").format(
                entries=", ".join(hosts))
        elif names:
            problem = self.tr("Not a variable name (letters, digits and _, or a prefix "
                              "ending in *): {entries}").format(entries=", ".join(names))
        self.error.setText(problem or "")
        self.error.setVisible(problem is not None)
        return problem
