from __future__ import annotations

from typing import Any

import pytest

from desktop.core.settings import ModelPrice
from desktop.ui.providers.prices_dialog import PricesDialog


def test_prices_round_trip_and_validation(qtbot: Any) -> None:
    dialog = PricesDialog({"gpt-4o": ModelPrice(input=2.5, output=10, cached_input=1.25)})
    qtbot.addWidget(dialog)
    assert dialog.prices() == {"gpt-4o": ModelPrice(input=2.5, output=10, cached_input=1.25)}
    dialog.add_row("", None)
    assert len(dialog.prices()) == 1  # empty rows are ignored
    dialog.table.item(1, 0).setText("local")
    with pytest.raises(ValueError, match="Row 2: enter input and output"):
        dialog.prices()
    dialog.table.item(1, 1).setText("x")
    with pytest.raises(ValueError, match="numbers"):
        dialog.prices()
    dialog.table.item(1, 1).setText("0")
    dialog.table.item(1, 2).setText("0")
    with qtbot.waitSignal(dialog.pricesChanged) as blocker:
        dialog._save()
    assert blocker.args[0]["local"] == ModelPrice(input=0, output=0)
