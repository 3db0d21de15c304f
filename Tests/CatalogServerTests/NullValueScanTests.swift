@testable import CatalogServer
import Hummingbird
import NIOCore
import Testing

@Suite("The quick pass for a null in a JSON body")
struct NullValueScanTests {
    @Test("A null outside every string is found; an n inside a string is not", arguments: [
        (#"{"a": null}"#, true), (#"[1, null]"#, true), (#"null"#, true), (#"{"a":{"b":[null]}}"#, true),
        (#"{"a": "null"}"#, false), (#"{"null": 1}"#, false), (#"{"a": "n\"null\"n"}"#, false),
        (#"{"a": "\\", "b": null}"#, true), (#"{"a": "\\\"", "b": "n"}"#, false), (#"{"a": true, "b": false}"#, false),
        (#"{"a": "é\u006e"}"#, false), (#""#, false), (#"{"a": "unterminated n"#, false), (#""\"#, false),
    ])
    func scan(body: String, mayHoldNull: Bool) {
        #expect(NullValueMiddleware<BasicRequestContext>.mayHoldNull(ByteBuffer(string: body)) == mayHoldNull)
    }

    @Test("Only the buffer's readable bytes are read")
    func readableBytes() {
        var buffer = ByteBuffer(string: #"null {"a": 1}"#)
        buffer.moveReaderIndex(forwardBy: 5)
        #expect(!NullValueMiddleware<BasicRequestContext>.mayHoldNull(buffer))
    }
}
