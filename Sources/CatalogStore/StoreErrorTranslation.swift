import CatalogCore
import Logging
import PostgresNIO

/// The database cannot serve now (down, restarting, out of connections); retrying later may succeed.
public struct StoreUnavailable: Error, CustomStringConvertible {
    public let description: String
}

/// The database refused something the catalog should have prevented: a bug, never the client's fault.
public struct StoreInvariantViolation: Error, CustomStringConvertible {
    public let description: String
}

/// How PostgreSQL's errors become the catalog's. Unique, check and foreign-key violations are named by
/// constraint, so each maps to the sentence a caller can act on; no SQL text ever leaves this file.
enum StoreErrorTranslation {
    static let uniqueViolations: [String: String] = [
        "apps_pkey": "an app with this bundleId already exists",
        "products_pkey": "a product with this productId already exists in the app",
        "product_id_reservations_pkey": "this productId was used before in the app and stays reserved for good",
        "products_reference_name_unique": "another product of the app already has this referenceName",
        "products_level_unique": "another subscription of the group already has this level",
        "products_one_free_subscription": "the app already has a free subscription (at most one per app)",
        "subscription_groups_reference_name_unique": "another subscription group of the app already has this referenceName",
    ]

    static func translate(_ error: PSQLError, logger: Logger) -> any Error {
        guard error.code == .server, let info = error.serverInfo, let state = info[.sqlState] else {
            return StoreUnavailable(description: "the database is unavailable (\(error.code))")
        }
        let constraint = info[.constraintName] ?? ""
        switch state {
        case "23505", "23P01":
            // products_level_unique is an exclusion constraint (deferrable, 0017): 23P01 is its violation.
            if let sentence = uniqueViolations[constraint] { return CatalogError.conflict(sentence) }
        case "23514" where constraint == "products_price_by_type":
            return CatalogError.validationFailed([FieldProblem(
                field: "price.amount", rule: "priceRule",
                message: "is not a price this type may have: above zero, zero or above for a non-consumable, zero for a free subscription")])
        case "23514" where constraint == "apps_product_limit":
            return CatalogError.conflict("an app holds at most \(Limits.productsPerApp) products")
        case "23503" where constraint == "products_subscription_group_fk":
            return CatalogError.validationFailed([FieldProblem(
                field: "subscriptionGroupId", rule: "exists", message: "no such subscription group in this app")])
        case "IC001":
            return CatalogError.conflict(info[.message] ?? "illegal state change")
        case _ where state.hasPrefix("22"):
            // A data exception: text PostgreSQL cannot hold (NUL), a number out of range. The input is at fault.
            return CatalogError.validationFailed([FieldProblem(
                field: "request", rule: "storable", message: "holds a value the catalog cannot store (such as a NUL character)")])
        case "40001", "40P01", "55P03":
            return CatalogError.conflict("a concurrent change got there first; read the product again and retry")
        case _ where state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57"):
            return StoreUnavailable(description: "the database is unavailable (SQLSTATE \(state))")
        default:
            break
        }
        logger.error("database refused a statement", metadata: [
            "sqlstate": "\(state)", "constraint": "\(constraint)", "message": "\(info[.message] ?? "")",
        ])
        return StoreInvariantViolation(description: "the database refused a change (SQLSTATE \(state) \(constraint))")
    }
}

extension PostgresTransactionError {
    /// What made the transaction fail: its statement's error, else its commit's or its begin's.
    var cause: (any Error)? { closureError ?? commitError ?? beginError }
}
