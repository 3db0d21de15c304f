import PurchaseCore

/// The outbound calls to the App Store (docs/architecture.md).
public enum AppStoreClientModule {}
