"""toolgym envs behind the ecosystem's interfaces: an OpenEnv server and an MCP server.

Imported by ``toolgym serve --protocol ...`` and :mod:`toolgym.remote` only, never by
``import toolgym``: it needs the ``serve`` extra (openenv-core, fastapi, uvicorn, websockets)
or the ``mcp`` extra.
"""
