/// The tk-agent version.
public enum TKVersion {
    public static let string = "0.1.0"
}
