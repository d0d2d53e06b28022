"""What several packages write the same way, in one home each.

JSON (``_json``: pointers, type names, compact and canonical text; ``_json_data``: a report's JSON form from its
fields; ``_jsontree``: walking a parsed value), YAML
(``_yaml``), the CI forms of every report (``_junit``, ``_markdown``), whether an endpoint was reached at all
(``_reach``), ``with`` blocks that close what they hold (``_closing``), ``module:attr`` paths (``_import_path``), secrets found and redacted by meaning (``_secrets``,
``_redact``), and AWS event-stream messages (``_eventstream``, which Bedrock's bodies and their redaction share).
"""
