import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';

/** Whether any field or enum value of the schema is deprecated (the metrics count their use only then). */
export function deprecatesFields(graphqlSchema: GraphQLSchema): boolean {
  return Object.values(graphqlSchema.getTypeMap()).some(
    (type) =>
      !type.name.startsWith('__') &&
      (((isObjectType(type) || isInterfaceType(type)) && Object.values(type.getFields()).some((f) => f.deprecationReason != null)) ||
        (isInputObjectType(type) && Object.values(type.getFields()).some((f) => f.deprecationReason != null)) ||
        (isEnumType(type) && type.getValues().some((v) => v.deprecationReason != null))),
  );
}
