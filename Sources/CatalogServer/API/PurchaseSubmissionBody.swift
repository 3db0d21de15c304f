import NIOCore

/// The members of a purchase submission's body (`PurchaseSubmissionCreate`), however it was read.
struct PurchaseSubmissionBody: Equatable {
    var signedTransaction: String?
    var receipt: String?
    var accountToken: String?

    private static let members = ["signedTransaction", "receipt", "accountToken"].map { Array($0.utf8) }

    /// The body of the plain form every client sends: an object of the three members, or some of them, each once,
    /// each a string without escapes or control characters, blanks between tokens allowed. `nil` for anything
    /// else, which the generated layer reads and, where it is wrong, refuses with its own problem: this reader
    /// never accepts what `JSONDecoder` would refuse or reads anything differently.
    init?(plain body: ByteBuffer) {
        let read = body.withUnsafeReadableBytes { bytes -> PurchaseSubmissionBody? in
            var reader = PlainObjectReader(bytes: bytes)
            var found = PurchaseSubmissionBody()
            var seen = [false, false, false]
            guard reader.skip(UInt8(ascii: "{")) else { return nil }
            if !reader.skip(UInt8(ascii: "}")) {
                repeat {
                    guard let key = reader.string(),
                          let index = Self.members.firstIndex(where: { key.elementsEqual($0) }), !seen[index],
                          reader.skip(UInt8(ascii: ":")), let value = reader.string()
                    else { return nil }
                    seen[index] = true
                    let text = String(decoding: value, as: UTF8.self)
                    switch index {
                    case 0: found.signedTransaction = text
                    case 1: found.receipt = text
                    default: found.accountToken = text
                    }
                } while reader.skip(UInt8(ascii: ","))
                guard reader.skip(UInt8(ascii: "}")) else { return nil }
            }
            return reader.isAtEnd ? found : nil
        }
        guard let read else { return nil }
        self = read
    }

    init(signedTransaction: String? = nil, receipt: String? = nil, accountToken: String? = nil) {
        self.signedTransaction = signedTransaction
        self.receipt = receipt
        self.accountToken = accountToken
    }
}

/// Tokens of a JSON object read in place, only in the plain form ``PurchaseSubmissionBody`` takes.
private struct PlainObjectReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool {
        mutating get {
            skipBlanks()
            return position == bytes.count
        }
    }

    /// Passes `byte`, after any blanks, if it is next.
    mutating func skip(_ byte: UInt8) -> Bool {
        skipBlanks()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The next string's bytes between its quotes; `nil` if it is not a string or holds an escape or a control
    /// character.
    mutating func string() -> UnsafeRawBufferPointer? {
        guard skip(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1])
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    private mutating func skipBlanks() {
        while position < bytes.count,
              bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D {
            position += 1
        }
    }
}
