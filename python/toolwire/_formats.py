"""Where the compiled binding finds ``event_json`` (``rust/py/engine.rs`` imports it by this module's name).

Its home is ``toolwire.formats._json``; once the binding names that module, this one goes.
"""

from toolwire.formats._json import event_json

__all__ = ["event_json"]
