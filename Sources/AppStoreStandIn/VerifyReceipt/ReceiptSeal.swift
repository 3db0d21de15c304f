import Crypto
import Foundation

/// Seals the stand-in's receipts and opens them again: a receipt is base64 of a marker, an HMAC-SHA-256 under
/// the stand-in's secret, and the receipt's JSON. Opaque to the service, as Apple's receipts are; checkable
/// only by a stand-in that holds the same secret (`--secret-file`), so that `appstore-standin receipt` and
/// `appstore-standin serve` agree.
public struct ReceiptSeal: Sendable {
    /// The secret's bytes (`SymmetricKey` is not `Sendable`; one is made per use).
    private let secret: Data

    /// Receipts start with these bytes.
    static let marker = Array("SIR1".utf8)
    static let macLength = 32

    /// A seal under `secret` (any bytes; at least 16).
    public init(secret: some DataProtocol) {
        self.secret = Data(secret)
    }

    /// A seal under a new random secret: receipts it issues verify only in this process.
    public static func random() -> ReceiptSeal {
        ReceiptSeal(secret: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    /// A seal under the secret in `path` (its bytes, trailing newlines dropped).
    public static func load(secretFile path: String) throws(SealProblem) -> ReceiptSeal {
        guard var bytes = FileManager.default.contents(atPath: path) else {
            throw SealProblem("cannot read the secret file \(path)")
        }
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count >= 16 else { throw SealProblem("the secret in \(path) must be at least 16 bytes") }
        return ReceiptSeal(secret: bytes)
    }

    /// The base64 receipt-data of `receipt`.
    public func seal(_ receipt: StandInReceipt) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let payload = (try? encoder.encode(receipt)) ?? Data()
        let mac = Data(HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: secret)))
        return (Data(Self.marker) + mac + payload).base64EncodedString()
    }

    /// Why receipt-data did not open.
    public enum Refusal: Error, Sendable, Hashable {
        /// Not base64, not one of ours, or not readable (Apple's 21002).
        case malformed
        /// Ours in shape, but not sealed with this secret (Apple's 21003).
        case notAuthentic
    }

    /// The receipt sealed in `receiptData`, or why not.
    public func open(_ receiptData: String) -> Result<StandInReceipt, Refusal> {
        guard let bytes = Data(base64Encoded: receiptData, options: .ignoreUnknownCharacters),
              bytes.count > Self.marker.count + Self.macLength,
              bytes.prefix(Self.marker.count).elementsEqual(Self.marker)
        else { return .failure(.malformed) }
        let mac = bytes.dropFirst(Self.marker.count).prefix(Self.macLength)
        let payload = bytes.dropFirst(Self.marker.count + Self.macLength)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload,
                                                      using: SymmetricKey(data: secret)) else {
            return .failure(.notAuthentic)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let receipt = try? decoder.decode(StandInReceipt.self, from: payload) else { return .failure(.malformed) }
        return .success(receipt)
    }
}

/// A secret file that cannot be used.
public struct SealProblem: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
