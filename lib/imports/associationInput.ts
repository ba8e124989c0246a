/** One pair of an association list: the identity's externalId and the directory user's UPN. */
export interface AssociationInput {
  externalId: string;
  userPrincipalName: string;
}
