/**
 * toolkit's release public key, the same text as `deploy/release-key.pub.asc` (a test keeps
 * them equal). The key committed now is a placeholder made with `toolkit image-security keygen`;
 * the release process replaces both with the real release key.
 *
 * @module
 */

/** The armoured OpenPGP public key toolkit's own images are signed with. */
export const RELEASE_PUBLIC_KEY = `-----BEGIN PGP PUBLIC KEY BLOCK-----

xjMEawKrKhYJKwYBBAHaRw8BAQdA/QIc4qpR9lQHb2/FriXM0wu2jyv1//Pt
FatlOOTrEonNP3Rvb2xraXQgcmVsZWFzZSBzaWduaW5nIGtleSAocGxhY2Vo
b2xkZXIpIDxyZWxlYXNlQHRvb2xraXQuZGV2PsLAEwQTFgoAhQWCawKrKgML
CQcJEMLnJ1Pei2YwRRQAAAAAABwAIHNhbHRAbm90YXRpb25zLm9wZW5wZ3Bq
cy5vcmf/tiW6KTahGIp985ioIoCE4NalehWft8HnlxU5YcNgywUVCggODAQW
AAIBAhkBApsDAh4BFiEELFWtAqjPa7kL2jRMwucnU96LZjAAAP5yAP0a6HS8
BFfRUQElhc6g3IlJlLCQ+n5efx+9q82dPmzVngEA5ndaiVhz+h2szEA/2C42
dsMed0p3Mhh90lHNDtizlwLOOARrAqsqEgorBgEEAZdVAQUBAQdAT1pph4oq
O3yhI5COzjKVdLuDFsw1g2M5qywbJp6WoRQDAQgHwr4EGBYKAHAFgmsCqyoJ
EMLnJ1Pei2YwRRQAAAAAABwAIHNhbHRAbm90YXRpb25zLm9wZW5wZ3Bqcy5v
cmeVgV7p01K0WPg6wi0yiNFgYRTB4f/I9p3WUu+EPWI3FwKbDBYhBCxVrQKo
z2u5C9o0TMLnJ1Pei2YwAAAdFQEA0gZRhvL1gfDumuU0TBIhh+HL/R1w/3yk
dF1BJXbvGlsA/jkQi63Xdiujw9SgPh2wfRjSMP9fEcj+9WWCBoRQ3bEK
=Xkiv
-----END PGP PUBLIC KEY BLOCK-----
`;
