package benchdata

// TransformEnvelope is the standard profile (secrets redacted, personal
// data pseudonymised) with a fixed vault key: what the output-pipeline
// benchmarks run, natively and in wasm.
const TransformEnvelope = `{
  "policy": {"name": "bench", "extends": "standard", "allow_tools": ["*"],
             "vault": {"key": "benchmark key, not a secret"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`

// ToolResult1KB is a 1 KB tools/call response as go-sdk servers write it:
// a JSON text item and the same records as structuredContent, but for the
// last one's notes, with two emails, two phone numbers, a card number, an
// IP address and an API key among ordinary fields.
const ToolResult1KB = `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"{\"customers\":[{\"id\":\"c-1\",\"name\":\"Alice Martin\",\"email\":\"alice.martin@example.com\",\"phone\":\"+44 20 7946 0958\",\"tier\":\"gold\",\"since\":\"2019-04-01\",\"notes\":\"prefers email, renewal due in March\"},{\"id\":\"c-2\",\"name\":\"Bob Keller\",\"email\":\"bob.keller@example.org\",\"phone\":\"+1 415 555 0132\",\"tier\":\"silver\",\"since\":\"2021-11-15\",\"notes\":\"last login from 203.0.113.7\"}],\"total\":2}"}],"structuredContent":` + StructuredContent1KB + `,"isError":false}}`

// StructuredContent1KB is ToolResult1KB's structuredContent.
const StructuredContent1KB = `{"customers":[{"id":"c-1","name":"Alice Martin","email":"alice.martin@example.com","phone":"+44 20 7946 0958","tier":"gold","since":"2019-04-01","notes":"prefers email, renewal due in March"},{"id":"c-2","name":"Bob Keller","email":"bob.keller@example.org","phone":"+1 415 555 0132","tier":"silver","since":"2021-11-15","notes":"card 4111 1111 1111 1111 on file; key sk_live_4eC39HqLyjWDarjtT1zdp7dc"}],"total":2}`

// ToolCallRequest is the request ToolResult1KB answers.
const ToolCallRequest = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"a"}}}`
