import Foundation

/// The fields App Review sees: one revision of a product's reviewed content.
///
/// A product has a working revision and, once it has passed review, a live revision; the working one is a
/// draft while it differs from the live one. Edits of these fields are held back in the states where content
/// is under review (``ReviewState/acceptsReviewedEdits``).
public struct ReviewedContent: Sendable, Hashable, Codable {
    public var localizations: [Localization]
    /// Free text for App Review.
    public var reviewNote: String?
    /// Once on, never off again.
    public var familyShareable: Bool
    public var subscriptionGroupID: UUID?
    /// 1 is the highest service level; unique within the group.
    public var level: Int?
    public var duration: SubscriptionDuration?

    public init(localizations: [Localization] = [], reviewNote: String? = nil, familyShareable: Bool = false,
                subscriptionGroupID: UUID? = nil, level: Int? = nil, duration: SubscriptionDuration? = nil) {
        self.localizations = localizations
        self.reviewNote = reviewNote
        self.familyShareable = familyShareable
        self.subscriptionGroupID = subscriptionGroupID
        self.level = level
        self.duration = duration
    }

    /// The API's names of the reviewed fields: an edit of one of them on a live product goes into a draft, which
    /// `submit_change` sends to review. Derived from ``changes(from:)``, so that the two cannot disagree.
    public static let fieldNames: Set<String> = Set(
        ReviewedContent(localizations: [Localization(locale: "en", displayName: "..", description: ".")], reviewNote: "",
                        familyShareable: true, subscriptionGroupID: UUID(), level: 1, duration: .oneWeek)
            .changes(from: ReviewedContent()).map(\.field))

    /// The field-by-field differences from `other`, named as the API names them.
    public func changes(from other: ReviewedContent) -> [FieldChange] {
        [
            FieldChange(field: "localizations", old: other.localizations, new: localizations),
            FieldChange(field: "reviewNote", old: other.reviewNote, new: reviewNote),
            FieldChange(field: "familyShareable", old: other.familyShareable, new: familyShareable),
            FieldChange(field: "subscriptionGroupId", old: other.subscriptionGroupID, new: subscriptionGroupID),
            FieldChange(field: "level", old: other.level, new: level),
            FieldChange(field: "duration", old: other.duration, new: duration),
        ].compactMap { $0 }
    }
}
