-- name: _chunks
-- kind: table_macro
-- params: chunks
-- needs: _diag.spans
-- _chunks: each process/device's GPU span (first start to last end of its GPU operations) cut into `chunks`
-- equal chunks, the time grid of the beyond-nsys rules; created as the table macro _diag.chunks(chunks).
SELECT
    s.pid,                                          -- process
    s.device,                                       -- CUDA device id
    c.i AS chunk,                                   -- chunk number, from 0
    s.start_ns + c.i * s.chunk_ns AS chunk_start_ns, -- chunk start (ns)
    least(s.start_ns + (c.i + 1) * s.chunk_ns, s.end_ns) AS chunk_end_ns, -- chunk end (ns)
    s.start_ns AS span_start_ns,                    -- first GPU operation start of the pid/device (ns)
    s.chunk_ns                                      -- chunk length (ns)
FROM (
    SELECT pid, device, start_ns, end_ns, CAST(ceil((end_ns - start_ns) / chunks) AS BIGINT) AS chunk_ns
    FROM _diag.spans
    WHERE end_ns > start_ns
) AS s, range(0, chunks) AS c(i)
WHERE s.start_ns + c.i * s.chunk_ns < s.end_ns
