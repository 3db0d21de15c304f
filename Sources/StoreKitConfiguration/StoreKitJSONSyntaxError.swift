/// Why a document is not valid JSON, and where.
///
/// The message never quotes document content beyond the one offending
/// character, so it is safe to log even for a file that embeds a private key.
public struct StoreKitJSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public let line: Int
    /// 1-based column, counted in Unicode scalars so that it matches what an editor shows.
    public let column: Int
    /// 0-based offset in bytes from the start of the input.
    public let byteOffset: Int
    public let message: String

    public init(line: Int, column: Int, byteOffset: Int, message: String) {
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
