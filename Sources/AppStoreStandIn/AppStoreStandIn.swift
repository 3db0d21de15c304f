import PurchaseCore

/// The stand-in App Store (docs/architecture.md).
public enum AppStoreStandInModule {}
