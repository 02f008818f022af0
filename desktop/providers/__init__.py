"""Provider adapters: one module per wire API. No Qt here."""

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.providers.images_api import image_stream

#: What only some requests use, loaded then (not before the first question is sent): an
#: image-generation model's answer through the Images API (``uses_images_api``), used by
#: the OpenAI adapters as ``providers.image_stream``.
__getattr__ = lazy_names(__name__, {"image_stream": "desktop.providers.images_api"},
                         globals())

__all__ = ["image_stream"]
