/// Converts between the domain's enums and the generated API's enums of the same values. Both sides are
/// generated from (or checked against) the same names; a test converts every case both ways.
enum EnumMapping {
    static func convert<From: RawRepresentable, To: RawRepresentable>(_ value: From, to _: To.Type = To.self) -> To
    where From.RawValue == String, To.RawValue == String {
        guard let converted = To(rawValue: value.rawValue) else {
            preconditionFailure("\(To.self) has no case \(value.rawValue): the OpenAPI document and CatalogCore disagree")
        }
        return converted
    }
}
