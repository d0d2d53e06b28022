"""The pipeline behind the entry points, in the order a stream goes through it.

Sources (``_sources``: what a source is, closing it; ``_frameworks``: LangChain and LiteLLM objects read as their wire
format) feed an engine (``_extension``: the one import of the Rust core; ``_protocol``: what an implementation is;
``_options``: the keywords every entry point shares) through the stream and its events (``_streams``,
``_reassembler``, ``_progress``, ``_repair``, ``_normalize`` for buffered responses); calls given outside a stream are
validated by ``_validation`` and ``_batch``; ``_choice`` reads a request's ``tool_choice``. ``_api`` writes the entry
points once over an implementation, ``_exports`` lists the names both implementations export, and ``_bound`` binds them
to the core (what ``import toolwire`` exports and the kits call).
"""
