"""The "Web search" page of Preferences: the search service behind the ``web_search``
tool (SearXNG, Brave Search, Tavily), its address and its API key; and the limits of
a research run (the composer's Research switch): rounds, minutes, cost ceiling.

Used when a chat searches the web on a provider without a search of its own; the key
goes to the key store (desktop.chat.web_search.SECRET_ID), never to the settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from desktop.chat.web_search import SECRET_ID

if TYPE_CHECKING:
    from desktop.core.services import KeyStore
    from desktop.core.settings import AppSettings


class WebSearchSettings(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service_combo = QComboBox()
        self.service_combo.setAccessibleName(self.tr("Search service"))
        self.service_combo.addItem(self.tr("None"), "")
        self.service_combo.addItem(self.tr("SearXNG"), "searxng")
        self.service_combo.addItem(self.tr("Brave Search"), "brave")
        self.service_combo.addItem(self.tr("Tavily"), "tavily")
        self.url_edit = QLineEdit()
        self.url_edit.setAccessibleName(self.tr("Search service address"))
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setAccessibleName(self.tr("Search service API key"))
        hint = QLabel(self.tr(
            "Chats with \"Search the web\" on use the provider's own search where it has "
            "one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a "
            "web_search tool on the service chosen here. SearXNG must allow the json "
            "format (search: formats: [html, json] in its settings.yml)."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(self.tr("Service"), self.service_combo)
        form.addRow(self.tr("Address"), self.url_edit)
        form.addRow(self.tr("API key"), self.key_edit)
        form.addRow("", hint)
        self._research_rows(form)
        self._key_loaded = ""
        self.service_combo.currentIndexChanged.connect(self._follow_service)

    def _research_rows(self, form: QFormLayout) -> None:
        title = QLabel(self.tr("Research"))
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        form.addRow(title)
        self.rounds_spin = QSpinBox()
        self.rounds_spin.setRange(1, 20)
        self.rounds_spin.setAccessibleName(self.tr("Research: search rounds at most"))
        self.minutes_spin = QSpinBox()
        self.minutes_spin.setRange(1, 240)
        self.minutes_spin.setSuffix(self.tr(" min"))
        self.minutes_spin.setAccessibleName(self.tr("Research: minutes at most"))
        self.cost_spin = QDoubleSpinBox()
        self.cost_spin.setRange(0.0, 1000.0)
        self.cost_spin.setDecimals(2)
        self.cost_spin.setSingleStep(0.1)
        self.cost_spin.setPrefix("$")
        self.cost_spin.setSpecialValueText(self.tr("No ceiling"))
        self.cost_spin.setAccessibleName(self.tr("Research: cost ceiling in US dollars"))
        form.addRow(self.tr("Search rounds"), self.rounds_spin)
        form.addRow(self.tr("Time limit"), self.minutes_spin)
        form.addRow(self.tr("Cost ceiling"), self.cost_spin)
        hint = QLabel(self.tr(
            "A research run stops at whichever limit comes first and says so in its report. "
            "The cost counts only models with a known price (Model prices)."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form.addRow("", hint)

    def _follow_service(self) -> None:
        service = self.service_combo.currentData()
        self.url_edit.setEnabled(bool(service))
        self.key_edit.setEnabled(service in ("brave", "tavily"))
        self.url_edit.setPlaceholderText(
            self.tr("https://searx.example.org") if service == "searxng"
            else self.tr("Default: the service's API") if service else "")

    def load(self, settings: AppSettings, secrets: KeyStore) -> None:
        self.service_combo.setCurrentIndex(
            max(0, self.service_combo.findData(settings.web_search_service)))
        self.url_edit.setText(settings.web_search_url)
        self._key_loaded = secrets.get(SECRET_ID) or ""
        self.key_edit.setText(self._key_loaded)
        self._follow_service()
        self.rounds_spin.setValue(settings.research_max_rounds)
        self.minutes_spin.setValue(max(1, round(settings.research_max_minutes)))
        self.cost_spin.setValue(settings.research_max_cost)

    def problem(self) -> str | None:
        if self.service_combo.currentData() == "searxng" and not self.url_edit.text().strip():
            return self.tr("SearXNG needs the address of an instance.")
        return None

    def changes(self) -> dict[str, object]:
        return {"web_search_service": self.service_combo.currentData(),
                "web_search_url": self.url_edit.text().strip(),
                "research_max_rounds": self.rounds_spin.value(),
                "research_max_minutes": float(self.minutes_spin.value()),
                "research_max_cost": round(self.cost_spin.value(), 2)}

    def save_key(self, secrets: KeyStore) -> None:
        key = self.key_edit.text().strip()
        if key == self._key_loaded:
            return
        if key:
            secrets.set(SECRET_ID, key)
        else:
            secrets.delete(SECRET_ID)
        self._key_loaded = key
