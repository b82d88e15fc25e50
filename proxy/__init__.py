"""ReplyGuard's HTTP side: the aiohttp server, SSE in and out, the upstream client, metrics."""
