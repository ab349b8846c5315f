// Peers and helpers other contexts' tests use (the Meta webhook sender, the Graph API on 127.0.0.1).
export * from './meta-peers';
