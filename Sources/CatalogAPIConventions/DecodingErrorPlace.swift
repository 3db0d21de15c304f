/// Where in a JSON document a decoding error is, and whether it is a member the document does not have:
/// read the same way by the server (problem details) and the CLI (its input files).
extension DecodingError {
    /// The member a closed object (`additionalProperties: false`, every request body's top level) does not
    /// have. OpenAPIRuntime reports it as corrupted data with this wording.
    public var isUnknownMember: Bool {
        guard case .dataCorrupted(let context) = self else { return false }
        return context.debugDescription.hasPrefix("Additional properties are disabled")
    }

    /// `localizations[0].displayName` for a coding path (with `last` appended); empty for the top level.
    public static func jsonPath(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
        var text = ""
        for key in codingPath + (last.map { [$0] } ?? []) {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
